// The store works without this script; it only adds copy buttons and refreshes the page of an
// order that is still on its way until it is final.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  if (navigator.clipboard) {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        navigator.clipboard.writeText(b.dataset.copy).then(function () { b.textContent = "Copied"; });
      });
    });
  }
  if (document.querySelector("[data-pending]")) {
    setTimeout(function () { location.reload(); }, 2000);
  }
});
