// The console works without this script; it only adds copy buttons next to the secrets a page
// shows once. A button copies the text of the element its data-copy-from names.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("button.copy[data-copy-from]").forEach(function (b) {
    var from = document.getElementById(b.dataset.copyFrom);
    if (!from) {
      return;
    }
    b.hidden = false;
    var done = function () {
      b.textContent = "Copied";
      b.dataset.copied = "true";
    };
    b.addEventListener("click", function () {
      var text = from.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { fallback(from) && done(); });
      } else if (fallback(from)) {
        done();
      }
    });
  });
  // fallback selects the element's text and copies the selection (pages served over plain
  // http outside localhost have no clipboard API).
  function fallback(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try {
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }
});
