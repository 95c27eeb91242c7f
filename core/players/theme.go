package players

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/rewardsco/rewards/core/weburl"
)

// Theme is what the player's store applies of a game's store theme: the values of its known
// keys. The theme object may hold anything else a studio's own store reads; the store ignores
// it.
type Theme struct {
	// Primary, Background, Text and Surface are CSS colours: #rgb, #rgba, #rrggbb, #rrggbbaa,
	// rgb(), rgba(), hsl() or hsla().
	Primary, Background, Text, Surface string
	// Font is a font family name the player's device may have.
	Font string
	// Logo is an https address.
	Logo string
}

// The theme's known keys, and the keys that name the same value ("logo" is "logoUrl").
var (
	themeColours = map[string]func(*Theme) *string{
		"primaryColor":    func(t *Theme) *string { return &t.Primary },
		"backgroundColor": func(t *Theme) *string { return &t.Background },
		"textColor":       func(t *Theme) *string { return &t.Text },
		"surfaceColor":    func(t *Theme) *string { return &t.Surface },
	}
	themeLogoKeys = []string{"logoUrl", "logo"}
)

var (
	colourPattern = regexp.MustCompile(`^(#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(rgb|rgba|hsl|hsla)\([0-9., %deg/]{1,60}\))$`)
	fontPattern   = regexp.MustCompile(`^[A-Za-z0-9 ,\-]{1,80}$`)
)

// checkTheme refuses a theme whose known keys break their rules, so that what the store
// applies is what the operator was told it would be.
func checkTheme(obj map[string]any) error {
	for key := range themeColours {
		if v, set := obj[key]; set {
			if s, ok := v.(string); !ok || !colourPattern.MatchString(s) {
				return invalid("theme.%s must be a CSS colour such as #5b3df5 or rgb(91, 61, 245)", key)
			}
		}
	}
	if v, set := obj["fontFamily"]; set {
		if s, ok := v.(string); !ok || !fontPattern.MatchString(s) {
			return invalid("theme.fontFamily must be a font name: 1 to 80 letters, digits, spaces, commas or hyphens")
		}
	}
	for _, key := range themeLogoKeys {
		if v, set := obj[key]; set {
			if s, ok := v.(string); !ok || !weburl.Valid(s, false) {
				return invalid("theme.%s must be an https address", key)
			}
		}
	}
	return nil
}

// ParseTheme reads the known keys of a stored theme; a value that breaks its rule (a theme
// stored before they were checked) is left out.
func ParseTheme(raw []byte) Theme {
	var obj map[string]any
	_ = json.Unmarshal(raw, &obj)
	var t Theme
	for key, field := range themeColours {
		if s, _ := obj[key].(string); colourPattern.MatchString(s) {
			*field(&t) = s
		}
	}
	if s, _ := obj["fontFamily"].(string); fontPattern.MatchString(s) {
		t.Font = strings.TrimSpace(s)
	}
	for _, key := range themeLogoKeys {
		if s, _ := obj[key].(string); t.Logo == "" && weburl.Valid(s, false) {
			t.Logo = s
		}
	}
	return t
}
