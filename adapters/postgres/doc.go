// Package postgres implements the core modules' storage ports on PostgreSQL through
// sqlc-generated queries (package db) and pgx. Each module has its own repository type, built by
// its own constructor (NewCoinsStore, NewPlayersStore, …) on one DB; a use case that spans
// modules opens a transaction with DB.InTx and binds each module's repository to it. InTx
// retries serialization failures and deadlocks, 3 runs at most.
//
// # Round trips
//
// Every request costs PostgreSQL CPU per round trip, so money writes make few; "go tool task
// bench" counts them per request (a pgx tracer on the service's pool: statements, batches and
// prepares) and holds them to its goals.
//
//   - A transaction (pipe.go) sends BEGIN with its first statement, and statements whose answer
//     the use case does not need at once (locks, inserts, a move of an order, the day's budget,
//     the idempotency key's outcome) travel with the next statement or with COMMIT, in one pgx
//     batch. A check that must refuse such a statement raises in SQL (rewards_raise), so the
//     COMMIT it travels with never runs.
//   - uuids travel as their 16 bytes (uuid.go, a pgx codec), not through their text.
//   - Statements that a purchase or a partner order runs at every call keep their prepared
//     plans: one pool code is taken by a statement of its own (CatalogueTakeCode, LIMIT 1), and
//     one partner brand by its code (PartnerBrand), because the generic plans of their general
//     forms cost more than planning them each time.
//   - A purchase's first round trip asks whether the catalogue's version and the coin's value it
//     was planned from are still those (OrdersPlanHolds); see package orders.
//
// What each operation sends: a distribute is 1 round trip, for a game with webhooks too (the same
// statement adds its deliveries to the outbox), and 3 with an idempotency key; a coupon purchase 2
// (BEGIN with the plan's check, the debit and the take of its code; the order with the COMMIT; 3
// with an idempotency key; one more when the plan is read from the storage); a gift-card purchase
// 3 (the plan's check with the coin debit, the order with the COMMIT, then the delivery of its
// codes); a partner WALLET order 4 (BEGIN with the order's insert, whose answer gives its creation
// time, then the wallet's debit with the COMMIT). Purchases answer from what their transaction
// left, without reading the order again.
//
// A movement's statement also pays for the foreign keys PostgreSQL checks after it, each a
// lookup that locks the row it finds: its journal entry checks two (its coin with its game, its
// player with its game and environment) and its coin event one (its transaction). The game's row
// is not locked by movements.
//
// # Group commit
//
// A coin movement without an idempotency key is one statement that commits by itself. The
// balances are spread over a few lines per instance (one per core, at least 2), by player and
// coin; movements that arrive while another of their line runs on the instance queue behind it
// and then run together (coins_hot.go): one transaction of up to 64 statements sent as one
// batch, one round trip and one WAL flush for all, each movement with its own journal entry,
// balance after and event. The file's comment has the rules: arrival order per balance, lock
// order (player, coin) on every instance, and a refused batch made again one movement at a time.
//
// The WALLET orders of one partner wallet that arrive while another of them runs on the
// instance are placed together the same way (partner_turns.go): one transaction reads the
// balance with its BEGIN, runs each order's statements, and sends every order's debit (each its
// own journal entry) with the COMMIT, so the wallet row is locked and flushed once for all; an
// order the balance read does not cover is placed alone afterwards (and refused alone), and a
// turn PostgreSQL refuses committed nothing and its orders are placed one by one.
//
// # The daily purchase budget
//
// A game's purchase budget of the UTC day is checked and spent by one conditional statement in
// the purchase's transaction, so purchases racing at the edge never exceed it. A day's total is
// the sum of up to 64 rows: without a budget a purchase adds to one at random, so purchases do
// not wait for each other; with one, they add to the first row, whose lock orders them, and a
// budget set waits (an advisory lock of the game) for the purchases that read none.
package postgres
