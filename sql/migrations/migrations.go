// Package migrations embeds the goose migrations, so the binary migrates its own database.
// sqlc reads the same files as the schema. A schema change is a new file, never an edit of a
// landed one.
package migrations

import "embed"

// FS holds every migration, named NNNNN_what.sql.
//
//go:embed *.sql
var FS embed.FS
