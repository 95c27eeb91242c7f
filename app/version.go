package app

import (
	"runtime/debug"
	"sync"

	"github.com/rewardsco/rewards/adapters/httpapi"
)

// Version is the release, when the build sets it:
// go build -ldflags "-X github.com/rewardsco/rewards/app.Version=v1.4.0". Empty: Release reads it
// from the build.
var Version = ""

// Release is the version of this build, in the OpenAPI documents (info.version), the logs and
// the traces: Version when the build set it; else the version Go stamped into the binary
// (`go build` in a git checkout: the tag, or a pseudo-version naming the commit, +dirty with
// uncommitted changes); else the commit (its first 12 hex digits, -dirty likewise); else "dev",
// for `go run` and tests, which Go stamps with nothing.
func Release() string { return releaseOnce() }

var releaseOnce = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return release(Version, info)
})

func release(version string, info *debug.BuildInfo) string {
	if version != "" {
		return version
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	revision, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision == "" {
		return "dev"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified {
		revision += "-dirty"
	}
	return revision
}

// documentConfig is the server configuration of the committed OpenAPI documents: the default
// hosts and public address, as a local run has them.
func documentConfig() ServerConfig {
	cfg, err := LoadConfig(func(string) string { return "" })
	if err != nil {
		return ServerConfig{}
	}
	return ServerConfig{Hosts: httpapi.Hosts{Live: cfg.LiveHosts, Dev: cfg.DevHosts}, PublicURL: cfg.PublicURL}
}
