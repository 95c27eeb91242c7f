package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/core/store"
)

// The queues the modules' jobs run on; each has its own workers (Options.Workers).
const (
	// QueueMaintenance is the queue of small periodic jobs (purges).
	QueueMaintenance = river.QueueDefault
	// QueueOrders is the queue order fulfilment runs on.
	QueueOrders = "orders"
	// QueuePayments is the queue partner payment jobs run on.
	QueuePayments = "payments"
	// QueueWebhooks is the queue webhook deliveries run on.
	QueueWebhooks = "webhooks"
)

// maintenanceJob, embedded in a job's args, runs the job on QueueMaintenance with three
// attempts: a periodic job that fails for good is queued again at its next period.
type maintenanceJob struct{}

// InsertOpts implements river.JobArgsWithInsertOpts.
func (maintenanceJob) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 3}
}

// Options configure the queue.
type Options struct {
	// Workers is how many jobs of each named queue run at once in this instance; a queue left
	// out gets DefaultWorkers.
	Workers map[string]int
	Logger  *slog.Logger
	// RescueAfter is how long a job may run before River takes its instance for dead and works
	// it again (zero: DefaultRescueAfter). It must exceed the longest job's timeout (a webhook
	// attempt's 45 s).
	RescueAfter time.Duration
	// Metrics counts webhook delivery outcomes (nil: not counted).
	Metrics *metrics.Metrics
}

// DefaultRescueAfter is Options.RescueAfter's default.
const DefaultRescueAfter = 2 * time.Minute

// JobTimeout bounds a job whose worker sets no timeout of its own; RescueAfter must be at
// least this.
const JobTimeout = 45 * time.Second

// DefaultWorkers is the concurrency of a queue Options.Workers leaves out.
const DefaultWorkers = 5

// Queue is the River client every module's jobs run on.
type Queue struct {
	pool     *pgxpool.Pool
	opts     Options
	workers  *river.Workers
	queues   map[string]river.QueueConfig
	periodic []*river.PeriodicJob
	client   *river.Client[pgx.Tx]
	// webhooks dispatches the webhook outbox (RegisterWebhooks); nil without it.
	webhooks *dispatcher
}

// New returns a queue on pool. Modules register their jobs on it, then Open builds the client.
func New(pool *pgxpool.Pool, opts Options) *Queue {
	return &Queue{pool: pool, opts: opts, workers: river.NewWorkers(),
		queues: map[string]river.QueueConfig{QueueMaintenance: {MaxWorkers: opts.concurrency(QueueMaintenance)}}}
}

func (o Options) concurrency(queue string) int {
	if n := o.Workers[queue]; n > 0 {
		return n
	}
	return DefaultWorkers
}

// Register adds a module's worker, whose jobs run on queue. It must be called before Open.
func Register[T river.JobArgs](q *Queue, queue string, w river.Worker[T]) {
	if q.client != nil {
		panic("jobs: Register after Open")
	}
	river.AddWorker(q.workers, w)
	if _, ok := q.queues[queue]; !ok {
		q.queues[queue] = river.QueueConfig{MaxWorkers: q.opts.concurrency(queue)}
	}
}

// AddPeriodic adds a module's periodic job. It must be called before Open.
func (q *Queue) AddPeriodic(j *river.PeriodicJob) {
	if q.client != nil {
		panic("jobs: AddPeriodic after Open")
	}
	q.periodic = append(q.periodic, j)
}

// every queues args every interval, and at start, as a River periodic job: River runs it on
// the leader instance only, so once across instances.
func (q *Queue) every(interval time.Duration, args river.JobArgs) {
	q.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(interval),
		func() (river.JobArgs, *river.InsertOpts) { return args, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
}

// Open builds the River client from what the modules registered. Jobs can be inserted from
// then on; they are worked once Start is called.
func (q *Queue) Open() error {
	client, err := river.NewClient(riverpgxv5.New(q.pool), &river.Config{
		Queues:            q.queues,
		Workers:           q.workers,
		PeriodicJobs:      q.periodic,
		Logger:            q.opts.Logger,
		FetchPollInterval: 250 * time.Millisecond,
		FetchCooldown:     20 * time.Millisecond,
		// A job's default bound; workers set their own (a webhook attempt 45 s, an order step 30 s).
		JobTimeout: JobTimeout,
		// A job whose instance died mid-attempt is worked again after this long.
		RescueStuckJobsAfter: cmp.Or(q.opts.RescueAfter, DefaultRescueAfter),
	})
	if err != nil {
		return fmt.Errorf("job queue: %w", err)
	}
	q.client = client
	return nil
}

// Start begins working jobs until Stop.
func (q *Queue) Start(ctx context.Context) error {
	if q.client == nil {
		return errors.New("jobs: Start before Open")
	}
	if err := q.client.Start(ctx); err != nil {
		return err
	}
	if q.webhooks != nil {
		q.webhooks.start(ctx)
	}
	return nil
}

// Stop lets running jobs and webhook attempts finish, then stops.
func (q *Queue) Stop(ctx context.Context) error {
	var err error
	if q.webhooks != nil {
		err = q.webhooks.stopAndWait(ctx)
	}
	return errors.Join(err, q.client.Stop(ctx))
}

// pgxTx is what the postgres adapter's transactions offer to libraries that take part in it.
type pgxTx interface{ PgxTx() pgx.Tx }

// insertTx inserts a job in the caller's transaction: it exists if and only if t commits.
func (q *Queue) insertTx(ctx context.Context, t store.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	tx, ok := t.(pgxTx)
	if !ok {
		return errors.New("jobs: the transaction is not a PostgreSQL one")
	}
	if q.client == nil {
		return errors.New("jobs: insert before Open")
	}
	_, err := q.client.InsertTx(ctx, tx.PgxTx(), args, opts)
	return err
}

// InsertManyTx queues jobs inside tx: they exist if and only if tx commits.
func (q *Queue) InsertManyTx(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) error {
	if q.client == nil {
		return errors.New("jobs: insert before Open")
	}
	_, err := q.client.InsertManyTx(ctx, tx, params)
	return err
}

// Migrate creates or updates River's tables. Run it under the migration lock (see
// postgres.Migrate), so instances starting together on an empty database do not race.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}
