package storepage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// gameTTL is how long a game's store settings, theme and allowed origins are kept.
const gameTTL = 5 * time.Second

// maxGames bounds the cache; past it, it starts again empty.
const maxGames = 10_000

// gameInfo is what the pages show of a game's store.
type gameInfo struct {
	game     studio.Game
	settings players.StoreSettings
	theme    theme
	// themeURL is the address of the game's theme stylesheet, named by its content.
	themeURL string
}

type gameEntry struct {
	info gameInfo
	at   time.Time
}

// gameCache keeps gameInfo of recently seen games for gameTTL.
type gameCache struct {
	src Games
	mu  sync.Mutex
	m   map[uuid.UUID]gameEntry
}

func newGameCache(src Games) *gameCache { return &gameCache{src: src, m: map[uuid.UUID]gameEntry{}} }

func (c *gameCache) get(ctx context.Context, id uuid.UUID) (gameInfo, error) {
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && time.Since(e.at) < gameTTL {
		return e.info, nil
	}
	g, err := c.src.GetGame(ctx, id)
	if err != nil {
		return gameInfo{}, err
	}
	st, err := c.src.StoreSettings(ctx, id)
	if err != nil {
		return gameInfo{}, err
	}
	info := gameInfo{game: g, settings: st, theme: parseTheme(st.Theme)}
	sum := sha256.Sum256([]byte(info.theme.css()))
	info.themeURL = Path + "/theme/" + id.String() + "-" + hex.EncodeToString(sum[:6]) + ".css"
	c.mu.Lock()
	if len(c.m) >= maxGames {
		c.m = map[uuid.UUID]gameEntry{}
	}
	c.m[id] = gameEntry{info: info, at: time.Now()}
	c.mu.Unlock()
	return info, nil
}

// theme is the part of a game's store theme the pages apply: colours and a font as CSS custom
// properties, and a logo. Values that are not a colour, a font name or a web address are left
// out, whatever the stored theme holds.
type theme struct {
	Accent, Background, Text, Surface, Font string
	Logo                                    string
}

var (
	colourPattern = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\([0-9., %deg/]{1,60}\))$`)
	fontPattern   = regexp.MustCompile(`^[A-Za-z0-9 ,\-]{1,80}$`)
)

func parseTheme(raw []byte) theme {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	pick := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	colour := func(keys ...string) string {
		if v := pick(keys...); colourPattern.MatchString(v) {
			return v
		}
		return ""
	}
	t := theme{Accent: colour("primaryColor", "accentColor", "accent"), Background: colour("backgroundColor", "background"),
		Text: colour("textColor", "text"), Surface: colour("surfaceColor", "cardColor")}
	if f := pick("fontFamily", "font"); fontPattern.MatchString(f) {
		t.Font = f
	}
	if l := pick("logoUrl", "logo"); strings.HasPrefix(l, "https://") && !strings.ContainsAny(l, " \"'<>") {
		t.Logo = l
	}
	return t
}

// css is the theme as custom properties that static/store.css reads.
func (t theme) css() string {
	var b strings.Builder
	b.WriteString(":root{")
	for _, kv := range [][2]string{{"--accent", t.Accent}, {"--bg", t.Background}, {"--fg", t.Text}, {"--surface", t.Surface}} {
		if kv[1] != "" {
			b.WriteString(kv[0] + ":" + kv[1] + ";")
		}
	}
	if t.Font != "" {
		b.WriteString("--font:" + t.Font + ",system-ui,sans-serif;")
	}
	b.WriteString("}\n")
	return b.String()
}

// theme serves a game's theme stylesheet ({gameId}-{hash}.css), kept a year: its name changes
// with the theme.
func (p *Pages) theme(w http.ResponseWriter, r *http.Request) {
	file := strings.TrimSuffix(r.PathValue("file"), ".css")
	id, err := uuid.Parse(file[:min(36, len(file))])
	if err != nil || p.cfg.Games == nil {
		http.NotFound(w, r)
		return
	}
	g, err := p.games.get(r.Context(), id)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if Path+"/theme/"+r.PathValue("file") == g.themeURL {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	_, _ = w.Write([]byte(g.theme.css()))
}
