// Package orders owns what players (and, later, partners) buy: an order's state machine with
// every transition recorded, the saga that spends coins on a reward and fulfils it — from a
// coupon pool or shared code at once, from the voucher provider outside any transaction — and
// the codes it delivered, sealed at rest and shown only to their owner.
//
// # Planning a purchase
//
// A purchase is planned from memory: the reward as the catalogue's read model has it and the
// coin's value as the instance keeps it (coins.Values). Its transaction's first round trip asks
// whether the catalogue's version and the coin's value are still those (the postgres adapter's
// OrdersPlanHolds), before anything else it sends; when either moved (another instance's change
// not yet heard of) it raises, PostgreSQL skips the rest (nothing is debited, no code is
// locked), and the purchase is planned again from the storage under the same claim of its
// idempotency key (idempotency.Request.Again). A plan from memory refuses nothing by itself: a
// refusal (a face value, a cooldown, stock) is made from the storage. So a purchase never
// charges a price, nor refuses, from a catalogue older than its transaction; a purchase before
// the read model's first load is planned from the storage.
//
// # Fulfilment
//
// A gift card's order (a partner's too) is stored PROCESSING by the transaction that places it
// and sent to the provider once that commits, with no job: an order the provider answers within
// the purchase's wait (REWARDS_VOUCHER_WAIT) costs no job at all. An order not final by then is
// handed to a fulfilment job (Service.handOver), due when the wait ends. A crash between the
// commit and that hand-over loses nothing: every jobs.RecoverInterval the leader instance looks
// for the open orders of the provider unchanged for longer than the wait (plus 2 s) that have no
// job, with the orders' open-status index, and queues theirs (recover_orders). A job is unique
// per order (River's unique insert), so the hand-over and the recovery never queue two.
//
// # Late orders
//
// An order's job asks the provider every REWARDS_VOUCHER_POLL until the order's deadline
// (REWARDS_VOUCHER_DEADLINE after the purchase). The deadline alone refunds nothing the provider
// holds, since the provider may still issue the card: past it, an order the provider says is
// pending (or does not answer about) stays TIMEOUT and is asked again after as long as it has
// been late, so the waits double from the poll interval up to MaxLatePoll. A card issued late is
// delivered, and the coins (or a partner's wallet or payment) are given back once, only when the
// provider refuses the order, or when it never received it by the deadline (nothing was placed,
// and it is not sent any more). The wait is worked out from the order's deadline and the clock,
// not kept in the job, so a restarted service goes on where the killed one stopped.
//
// An order still without a final answer GiveUpAfter past its deadline is asked no more: its job
// ends with an error-level log ("alert: an order waits for an operator"), the recovery leaves it
// alone, and the metric rewards_orders_awaiting_operator counts it until an operator settles it
// with the provider. GET /admin/v1/orders/{orderId} shows such an order with its history; no
// operation settles it yet.
package orders
