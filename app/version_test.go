package app

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReleaseNamesTheBuild(t *testing.T) {
	t.Parallel()
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/rewardsco/rewards", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "4b0a741da52c49ce17bb8a8c5b61188b724f7315"
	for _, tc := range []struct {
		name, version string
		info          *debug.BuildInfo
		want          string
	}{
		{"set by -ldflags", "v1.4.0", vcs("v0.0.0-20261125162756-4b0a741da52c"), "v1.4.0"},
		{"a tagged checkout", "", vcs("v1.4.0", "vcs.revision", rev), "v1.4.0"},
		{"an untagged checkout", "", vcs("v0.0.0-20261125162756-4b0a741da52c+dirty", "vcs.revision", rev), "v0.0.0-20261125162756-4b0a741da52c+dirty"},
		{"a commit only", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "4b0a741da52c"},
		{"a commit with changes", "", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "4b0a741da52c-dirty"},
		{"go run", "", vcs("(devel)"), "dev"},
		{"no build information", "", nil, "dev"},
	} {
		require.Equal(t, tc.want, release(tc.version, tc.info), tc.name)
	}
}
