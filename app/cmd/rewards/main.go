// Command rewards runs the Rewards service.
//
//	rewards [serve]   run the HTTP service (the default)
//	rewards migrate   apply pending database migrations and exit
//	rewards openapi   print the public OpenAPI document (YAML) and exit
//	rewards openapi operator
//	                  print the operator API's OpenAPI document (YAML) and exit
//	rewards openapi studio
//	                  print the studio API's OpenAPI document (YAML) and exit
//
// Configuration is read from environment variables; see README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rewardsco/rewards/app"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rewards:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "openapi" {
		document := app.OpenAPIYAML
		switch {
		case len(args) > 1 && args[1] == "operator":
			document = app.OperatorOpenAPIYAML
		case len(args) > 1 && args[1] == "studio":
			document = app.StudioOpenAPIYAML
		case len(args) > 1:
			return fmt.Errorf("unknown document %q: use `openapi` (public), `openapi operator` or `openapi studio`", args[1])
		}
		doc, err := document()
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(doc)
		return err
	}
	cfg, err := app.LoadConfig(os.Getenv)
	if err != nil {
		return err
	}
	log, err := app.NewLogger(os.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "serve":
		return app.Serve(ctx, cfg, log, os.Stdout)
	case "migrate":
		db, err := app.OpenDatabase(ctx, cfg, log)
		if err != nil {
			return err
		}
		db.Close()
		log.Info("database is up to date")
		return nil
	default:
		return fmt.Errorf("unknown command %q: use serve, migrate or openapi", cmd)
	}
}
