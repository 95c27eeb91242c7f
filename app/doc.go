// Package app wires the Rewards service: configuration, logging, the database (external or a
// private local PostgreSQL), the core services, the HTTP server and its lifecycle.
//
// # Caches
//
// Every in-memory cache of the service, in one table. Each is per instance: this instance drops
// what its own writes change (the last column), and another instance serves the old value
// until its entry's time is up (kept). A cache's own comment says why it exists; a change to
// what a cache holds, or to what drops it, starts here.
//
//	cache (type, field)            holds                          bound          kept           dropped on this instance by
//	studio.Service.keys            API key hash: key record       50,000 LRU     1 s            key or secret rotation, game setting
//	studio.Service.secrets         server secret hash: record     50,000 LRU     1 s            the same
//	studio.Service.origins         environment+origin: allowed    50,000 LRU     1 s            any change of allowed origins (all)
//	members.Service.principals     bearer hash: principal         50,000 LRU     1 s            sign-out (one, everywhere), reset, role,
//	                                                                                            TOTP change, removal, token revocation
//	players.Service.seen           a token's player               100,000 LRU    1 s            any change of the player
//	players.Service.tokens         token text: verified claims    20,000 LRU     1 s, < expiry  nothing (claims never change)
//	partner.Service.tokens         token hash: token record       50,000 LRU     1 s            settings, secret, exchange, key rotation
//	coins.Values                   game+coin: coins per unit      10,000 LRU     1 s            SetCoinsPerUnit
//	touchpoints.Service.trees      decoded tree + its version     1,000 LRU      1 s w/o player PutTree, DeleteTree (the game's);
//	                                                                             else version   reads with a player check the version
//	catalogue.PoolStock            pool reward: free codes        pools read     500 ms         AddCodes, a purchase of the pool
//	catalogue.ReadModel            the catalogue, one Snapshot    one snapshot   version moves  own writes, loaded before returning;
//	                                                                                            others by NOTIFY or a 300 ms poll
//	catalogue Snapshot.views       sorted indexes per query       16 MiB         its snapshot   a new snapshot (some carried over)
//	catalogue searchViews.cache    sorted matches per search      1,024 LRU      its snapshot   a new snapshot, a reward's dates
//	catalogue searchViews.names    brands, categories found       1,024 LRU      its snapshot   a new snapshot, the game's counts
//	vouchers.StockCache            product: stock (no errors)     100,000        60 s (config)  nothing: purchases ask the provider
//	vouchers/sandbox Provider      product lookups (sandbox)      10,000         5 s            nothing
//	catalogueapi listItems         item shape: its JSON           4 MiB, clear   no expiry      never stale: served for equal shapes
//	storepage gameCache            game, store settings, theme    10,000, clear  5 s            nothing
//	storepage balances             player: store coin balance     100,000        1 s            a purchase in the store
//	storepage rendered             card or options HTML           50,000, clear  no expiry      never stale: keyed by content
//
// 1 s is authcache.TTL, 500 ms catalogue.PoolStockTTL, 60 s External.StockCacheTTL's default.
// "LRU" drops the least recently used past the bound; "clear" starts again empty.
// touchpoints.Service.trees serves a read without a player from memory for 1 s; every other
// read hands the storage the cached tree, which answers with it while it is the stored version
// (so never stale, and not decoded again).
//
// # Generated clients
//
// TestGeneratedClients (clients_test.go) generates clients of every served document
// (/openapi.json, /openapi-3.0.json, the operator's /admin/v1/openapi.json and -3.0.json, and
// the studio API's /studio/v1/openapi.json and -3.0.json)
// with ogen and oapi-codegen, as a studio or a partner would, fails on any error or warning
// either prints about a document (two ogen notices that say nothing wrong of one are listed with
// their reason), compiles and vets the clients, and runs a studio journey and a partner journey
// (testdata/clientjourney) through each public ogen client against the service it started.
// ogen's decoders are strict (unknown or missing fields, nulls, undeclared statuses and media
// types fail), so a document that describes an answer wrongly fails the test. Nothing generated
// is committed: the clients go to a temporary module made of this module's go.mod and go.sum
// (the generators are Go tools there, and their runtime packages are pinned by blank imports in
// the test), so the test resolves nothing at run time and works offline once the module cache
// is filled; with -trimpath, the build cache keeps the compiled clients while the documents do
// not change. REWARDS_CLIENTS_DIR=/some/dir keeps the generated module there to read. A rename
// of an operation or schema changes the generated names, as it does for every studio: the
// journeys break and must follow.
package app
