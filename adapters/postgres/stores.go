package postgres

import (
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
)

// The stores of the audit, console, idempotency, members, orders, players, storefront and
// studio modules, the ones app wires with nothing but the database. Each binds the module's
// repository, declared in the module's file, to the pool or to a transaction
// (newModuleStore); the binding's return type is where the compiler checks that the
// repository implements the module's port.

// NewAuditStore returns the storage of the audit log on d.
func NewAuditStore(d *DB) store.Of[audit.Repo] {
	return newModuleStore(d, func(c conn) audit.Repo { return &AuditRepo{c} })
}

// NewConsoleStore returns the storage of the studio console on d.
func NewConsoleStore(d *DB) store.Of[console.Repo] {
	return newModuleStore(d, func(c conn) console.Repo { return &ConsoleRepo{c} })
}

// NewIdempotencyStore returns the storage of idempotency keys on d.
func NewIdempotencyStore(d *DB) store.Of[idempotency.Repo] {
	return newModuleStore(d, func(c conn) idempotency.Repo { return &IdempotencyRepo{c} })
}

// NewMembersStore returns the storage of the members module on d.
func NewMembersStore(d *DB) store.Of[members.Repo] {
	return newModuleStore(d, func(c conn) members.Repo { return &MembersRepo{c} })
}

// NewPlayersStore returns the storage of the players module on d.
func NewPlayersStore(d *DB) store.Of[players.Repo] {
	return newModuleStore(d, func(c conn) players.Repo { return &PlayersRepo{c} })
}

// NewStorefrontStore returns the storage of the store's entry codes on d.
func NewStorefrontStore(d *DB) store.Of[storefront.Repo] {
	return newModuleStore(d, func(c conn) storefront.Repo { return &StorefrontRepo{c} })
}

// NewStudioStore returns the storage of the studio module on d.
func NewStudioStore(d *DB) store.Of[studio.Repo] {
	return newModuleStore(d, func(c conn) studio.Repo { return &StudioRepo{c} })
}

// NewOrdersStore returns the storage of the orders module on d.
func NewOrdersStore(d *DB) store.Of[orders.Repo] {
	return newModuleStore(d, func(c conn) orders.Repo { return &OrdersRepo{conn: c, db: d} })
}
