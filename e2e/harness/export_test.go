package harness

// BuildGoImage is GoImage without its per-process memo, so that tests can
// check that building again gives the same tag.
var BuildGoImage = buildGoImage
