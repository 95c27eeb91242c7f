package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// DemoCredentials are the demo tenant's ids and plaintext keys, kept in the data directory so
// that every local run can print them (the database keeps only hashes).
type DemoCredentials struct {
	StudioID   uuid.UUID `json:"studioId"`
	StudioName string    `json:"studioName"`
	GameID     uuid.UUID `json:"gameId"`
	GameName   string    `json:"gameName"`
	CoinID     uuid.UUID `json:"coinId"`
	CoinName   string    `json:"coinName"`
	LiveKey    string    `json:"liveKey"`
	TestKey    string    `json:"testKey"`
	// LivePartnerSecret is the live client secret issued when the demo enabled partner mode: on
	// live, as in production, the partner token exchange needs it.
	LivePartnerSecret string `json:"livePartnerSecret,omitempty"`
	// CatalogueSynced records that the fake provider's catalogue was synced into the demo.
	CatalogueSynced bool `json:"catalogueSynced"`
	// Synced counts what that sync created, for the banner.
	Synced int64 `json:"synced,omitempty"`
	// OwnerEmail and OwnerPassword sign the demo studio's owner in to the console (a first-run
	// password, made at random when the owner was seeded).
	OwnerEmail    string `json:"ownerEmail,omitempty"`
	OwnerPassword string `json:"ownerPassword,omitempty"`
	// PublicURL is the REWARDS_PUBLIC_URL the demo's links (its storeUrl, its tree's links)
	// and the fake provider's synced logos were last made with; "" before it was recorded.
	PublicURL string `json:"publicUrl,omitempty"`
}

// legacyDemoStoreURL is the demo game's storeUrl before it followed REWARDS_PUBLIC_URL.
const legacyDemoStoreURL = "http://localhost:8080/store"

// DemoWallet is what the demo game's test partner wallet is funded with.
const DemoWallet money.Amount = 100_000_00

// SeedDemo creates the demo studio, game and coin once, and with syncCatalogue (the fake voucher
// provider runs in-process) syncs the provider's catalogue once, so the store has rewards. Later
// calls return the credentials kept in path, unless the database no longer has that game (a
// reset database), when it seeds again.
//
// The demo's links follow publicURL (REWARDS_PUBLIC_URL) at every call: the game's storeUrl is
// publicURL/store (the service's own store pages) unless the operator set another, and when
// publicURL changed since the last call, the fake provider's catalogue is synced again, so the
// logos it names (served by this service under publicURL) load from the new address.
func SeedDemo(ctx context.Context, m Modules, path, publicURL string, syncCatalogue bool) (*DemoCredentials, error) {
	demo, err := seedDemo(ctx, m, path, publicURL)
	if err != nil {
		return nil, err
	}
	if demo.OwnerEmail == "" {
		// Data directories seeded before the console had no owner: give them one too.
		if err := seedOwner(ctx, m, demo); err != nil {
			return nil, err
		}
	}
	moved := demo.PublicURL != publicURL
	if syncCatalogue && (!demo.CatalogueSynced || moved) {
		// A sync again rewrites the provider's fields of the fake's rewards (logos among
		// them), as the operator's sync would; it runs only when the address changed.
		st, err := m.Catalogue.Sync(ctx)
		if err != nil {
			return nil, fmt.Errorf("sync the fake provider's catalogue: %w", err)
		}
		if !demo.CatalogueSynced {
			if err := seedTouchpoints(ctx, m, demo.GameID, storeURL(publicURL)); err != nil {
				return nil, err
			}
			demo.CatalogueSynced, demo.Synced = true, st.Created
		}
	}
	if err := followPublicURL(ctx, m, demo, publicURL); err != nil {
		return nil, err
	}
	demo.PublicURL = publicURL
	return demo, writeDemo(path, demo)
}

// followPublicURL points the demo game's storeUrl, and its demo tree's links, at publicURL's
// store pages, when the game still has a storeUrl the demo gave it.
func followPublicURL(ctx context.Context, m Modules, demo *DemoCredentials, publicURL string) error {
	g, err := m.Studios.GetGame(ctx, demo.GameID)
	if err != nil {
		return err
	}
	want := storeURL(publicURL)
	ours := g.StoreURL == legacyDemoStoreURL || demo.PublicURL != "" && g.StoreURL == storeURL(demo.PublicURL)
	if g.StoreURL == want || !ours {
		return nil
	}
	if _, err := m.Studios.SetStoreURL(ctx, g.ID, want); err != nil {
		return fmt.Errorf("point the demo game's storeUrl at %s: %w", want, err)
	}
	if demo.CatalogueSynced {
		if _, _, err := m.Touchpoints.PutTree(ctx, g.ID, demoTree, demoTreeNodes(want)); err != nil {
			return fmt.Errorf("point the demo tree's links at %s: %w", want, err)
		}
	}
	return nil
}

// seedTouchpoints gives the demo game a home-screen gift-card placement (the best gift card,
// in both environments) and a 1.0 tree "Home" listing the top gift cards, linked to store.
func seedTouchpoints(ctx context.Context, m Modules, gameID uuid.UUID, store string) error {
	p := touchpoints.Placement{ID: uuid.New(), GameID: gameID, Environment: studio.Test, Screen: "home", Type: touchpoints.TypeGiftCard,
		Rule: &touchpoints.Rule{SortBy: touchpoints.SortDefault}, IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://example.com/frame.png", Orientation: touchpoints.Portrait, Width: 360, Height: 640}}
	if _, _, err := m.Touchpoints.PutPlacement(ctx, p); err != nil {
		return fmt.Errorf("seed a placement: %w", err)
	}
	if _, err := m.Touchpoints.Promote(ctx, gameID); err != nil {
		return fmt.Errorf("promote the demo placement: %w", err)
	}
	if _, _, err := m.Touchpoints.PutTree(ctx, gameID, demoTree, demoTreeNodes(store)); err != nil {
		return fmt.Errorf("seed a touchpoint tree: %w", err)
	}
	return nil
}

// demoTree is the name of the demo game's 1.0 tree.
const demoTree = "Home"

// demoTreeNodes are the demo tree's nodes: a title and the top 5 rewards, each linking to its
// page in store ({store}/rewards/{id}, as 2.0 links do).
func demoTreeNodes(store string) []touchpoints.Node {
	return []touchpoints.Node{
		{DisplayOrder: 1, Title: []touchpoints.TextItem{{Text: "Top gift cards"}}},
		{DisplayOrder: 2, DataType: touchpoints.DataDynamic, ActionPrefix: store + "/rewards/",
			Query: &touchpoints.Query{Type: touchpoints.QueryRewards, Limit: 5}, CTA: &touchpoints.CTA{Text: "Redeem"}},
	}
}

// DemoOwnerEmail is the demo studio owner's sign-in to the console.
const DemoOwnerEmail = "owner@demo-studio.example"

// seedOwner invites the demo studio's owner and accepts the invitation with a random first-run
// password, as a new owner would from the emailed link.
func seedOwner(ctx context.Context, m Modules, demo *DemoCredentials) error {
	inv, err := m.Members.Invite(ctx, demo.StudioID, nil, DemoOwnerEmail, members.Owner)
	if err != nil {
		return fmt.Errorf("invite the demo owner: %w", err)
	}
	token := inv.URL[strings.LastIndexByte(inv.URL, '/')+1:]
	password := studio.RandomBase62(16)
	if _, err := m.Members.AcceptInvite(ctx, token, "Demo Owner", password); err != nil {
		return fmt.Errorf("accept the demo owner's invitation: %w", err)
	}
	demo.OwnerEmail, demo.OwnerPassword = DemoOwnerEmail, password
	return nil
}

func writeDemo(path string, demo *DemoCredentials) error {
	b, _ := json.MarshalIndent(demo, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func seedDemo(ctx context.Context, m Modules, path, publicURL string) (*DemoCredentials, error) {
	if b, err := os.ReadFile(path); err == nil {
		var demo DemoCredentials
		if err := json.Unmarshal(b, &demo); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		_, err := m.Studios.GetGame(ctx, demo.GameID)
		if err == nil {
			return &demo, nil
		}
		if !errors.Is(err, studio.ErrGameNotFound) {
			return nil, err
		}
	}
	s, err := m.Studios.CreateStudio(ctx, "Demo Studio")
	if err != nil {
		return nil, err
	}
	g, err := m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Demo Game", StoreURL: storeURL(publicURL)})
	if err != nil {
		return nil, err
	}
	c, err := m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Demo Coins", ImageURL: "https://example.com/coin.png"})
	if err != nil {
		return nil, err
	}
	// The demo game resells gift cards too: a WALLET partner with a funded test wallet. Its live
	// environment behaves as production does: enabling issued a live client secret.
	_, liveSecret, err := m.Partner.PutSettings(ctx, partner.Settings{GameID: g.ID, Enabled: true, Settlement: orders.Wallet})
	if err != nil {
		return nil, err
	}
	if _, _, err := m.Partner.Credit(ctx, g.ID, studio.Test, DemoWallet, "demo-funding"); err != nil {
		return nil, err
	}
	demo := &DemoCredentials{
		StudioID: s.ID, StudioName: s.Name, GameID: g.ID, GameName: g.Name,
		CoinID: c.ID, CoinName: c.Name, LiveKey: g.LiveKey, TestKey: g.TestKey, LivePartnerSecret: liveSecret,
		PublicURL: publicURL,
	}
	return demo, writeDemo(path, demo)
}
