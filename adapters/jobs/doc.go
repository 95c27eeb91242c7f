// Package jobs runs the service's durable background work on River, a job queue kept in the
// same PostgreSQL database, so that a job is queued in the very transaction that makes it due.
// Several service instances share the queue; River locks each job for one of them, and runs
// periodic jobs on the elected leader only, so each runs once across instances.
//
// Every module brings its own jobs (webhooks.go, idempotency.go, …): it registers its workers
// with Register and its periodic jobs with AddPeriodic, before Open builds the one River client.
//
//   - webhooks.go and dispatch.go: the dispatcher of the webhook outbox (below), and the
//     auto-disable rule (package webhooks) every DisableCheckInterval on the leader.
//   - orders.go: fulfilment of provider orders, and the recovery of open orders left without a
//     job, every RecoverInterval on the leader (package orders tells the whole rule).
//   - partner.go: a CASH order's payment reconciled at its expiry and after each provider event,
//     payment refunds, and the purge of expired partner tokens.
//   - idempotency.go: the hourly purge of idempotency keys, on the leader.
//   - retention.go: the hourly purges of OTP records past REWARDS_OTP_RETENTION and of finished
//     webhook deliveries past REWARDS_DELIVERY_RETENTION, on the leader: 1,000 rows a statement
//     (DELETE … WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED), by the database's clock)
//     and at most 200 statements a run; a larger backlog is worked again a second later. Coin
//     events and the ledger are never purged.
//   - depth.go: queue depth for /metrics.
//
// # The webhook outbox
//
// Webhook deliveries are not River jobs. They are an outbox of their own: the pending
// webhook_deliveries rows, added by the balance change's own statement, so a delivery exists if
// and only if its movement committed. The dispatcher claims the due ones in batches (FOR UPDATE
// SKIP LOCKED, a lease of DeliveryLease after which a delivery whose instance died is taken
// again), as many as REWARDS_WEBHOOK_WORKERS has free, records their attempts in group commit,
// and gives back without an attempt those whose configuration already has 4 attempts in flight
// on the instance. An attempt that fails on our side (not the receiver's) puts its delivery off
// a minute more each time and dead-letters it at the MaxInternalFailures-th. River's queue pause
// of QueueWebhooks pauses claims (the bench's webhooks-burst scenario uses it).
package jobs
