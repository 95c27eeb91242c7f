// Package touchpoints owns the reward widgets games draw inside their own screens: 2.0
// placements (one frame, one offer priced for the player, one call to action) served per
// screen, the library of PRESET frames, and 1.0 trees of nodes the game renders itself, whose
// STATIC nodes are hydrated with reward and product data and whose DYNAMIC nodes expand into
// one sibling per matching catalogue item.
//
// # Reads
//
// Rewards are hydrated through the Reads port, which package app serves from the catalogue's
// read model (see package catalogue). A tree read without a player token costs no round trip
// while fresh: its coin's value comes from coins.Values, and the stored tree from this
// service's cache of trees (treeCache; a tree not found is not kept, so a new tree is served at
// once everywhere). With a player token, the tree's version and the coin with the player's
// balance are read in one round trip, the tree's nodes only when they are not the cached
// version's: the one cache of trees is the core's, and the storage keeps none. GET /v2/touchpoints/serve reads the placement's reward
// (configured, else by its rule) through the same port; a configured reward the snapshot does
// not hold is one nobody sees, so the rule serves without asking PostgreSQL. Placements, the
// game's store address and touchpoint coin are read with the player's balance, in one round
// trip.
//
// # Bounded trees and pages
//
// A tree serves at most 2,000 nodes once its DYNAMIC nodes are expanded (a bigger one is refused
// on write), and GET /touchpoints at most 5,000 in one answer, all its trees together: a page
// ends before the tree that would take it past 5,000, counting each tree at the most it can
// serve (stored with the tree, served_size); a page holds at least one tree. The pages are cut
// from those numbers alone, the same way on every read, so only the page's trees are read and
// decoded.
package touchpoints
