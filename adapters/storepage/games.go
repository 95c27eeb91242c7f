package storepage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
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
	theme    players.Theme
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
	info := gameInfo{game: g, settings: st, theme: players.ParseTheme(st.Theme)}
	sum := sha256.Sum256([]byte(themeCSS(info.theme)))
	info.themeURL = Path + "/theme/" + id.String() + "-" + hex.EncodeToString(sum[:6]) + ".css"
	c.mu.Lock()
	if len(c.m) >= maxGames {
		c.m = map[uuid.UUID]gameEntry{}
	}
	c.m[id] = gameEntry{info: info, at: time.Now()}
	c.mu.Unlock()
	return info, nil
}

// themeCSS is the theme as custom properties that static/store.css reads.
func themeCSS(t players.Theme) string { return ":root{" + ThemeProperties(t, "--") + "}\n" }

// ThemeProperties are the declarations of the custom properties the store's stylesheet reads
// for the values of t the store applies, each name after prefix ("--": --accent, --bg, --fg,
// --surface and --font, the font with the system's after it). The console's preview of a
// theme draws with them too.
func ThemeProperties(t players.Theme, prefix string) string {
	var b strings.Builder
	for _, kv := range [][2]string{{"accent", t.Primary}, {"bg", t.Background}, {"fg", t.Text}, {"surface", t.Surface}} {
		if kv[1] != "" {
			b.WriteString(prefix + kv[0] + ":" + kv[1] + ";")
		}
	}
	if t.Font != "" {
		b.WriteString(prefix + "font:" + t.Font + ",system-ui,sans-serif;")
	}
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
	_, _ = w.Write([]byte(themeCSS(g.theme)))
}
