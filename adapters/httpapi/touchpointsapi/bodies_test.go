package touchpointsapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// benchTree is a served tree shaped as the load bench's (e2e/load touchpoints.go): 77 nodes, a
// banner, ten STATIC rewards each with an ASSET child, two DYNAMIC nodes expanded into ten
// rewards each (one with an ASSET child per copy), a footer; the thirty rewards hydrated with
// about 2 kB of texts each, and one reward of the tree with a popup.
func benchTree() touchpoints.Tree {
	text := func(n int) string { return strings.Repeat("Redeem at any store & online <b>now</b>. ", n/40+1)[:n] }
	coin := uuid.New()
	opacity := 0.9
	free := int64(7)
	count := 0
	node := func(typ touchpoints.DataType, kids ...touchpoints.Node) touchpoints.Node {
		count++
		return touchpoints.Node{ID: uuid.New(), DisplayOrder: count, DataType: typ, Nodes: kids,
			Title:      []touchpoints.TextItem{{Text: fmt.Sprintf("Node %d", count), FontSize: 14}},
			Background: &touchpoints.Fill{Color: "#202040", Opacity: &opacity}}
	}
	hydrated := func(n touchpoints.Node, i int) touchpoints.Node {
		id := uuid.New()
		item := &touchpoints.RewardItem{Reward: catalogue.Reward{ID: id, Type: catalogue.GiftCard, BrandCode: "BRAND", Name: fmt.Sprintf("Card %d", i),
			CampaignTitle: text(40), CampaignSubTitle: text(60), CampaignDetails: text(400), TermsAndConditions: text(800), HowToRedeem: text(300),
			CoverImage: "https://cdn.example.com/cover.png", IsActive: true, ValueType: catalogue.Fixed, Denominations: []money.Amount{50_00}},
			Brand: catalogue.Brand{Code: "BRAND", Name: "Brand", LogoURL: "https://cdn.example.com/logo.png", Categories: []string{"food"}, IsActive: true}}
		if i%3 == 0 {
			item.Free = &free
		}
		n.RewardID = &id
		n.CTA = &touchpoints.CTA{Text: "Get", Action: "store://reward/" + id.String()}
		n.Data = &touchpoints.Data{Reward: &touchpoints.RewardData{RewardItem: item, IsActive: true, CoinID: coin, CoinPrice: 500}}
		return n
	}
	assets := func(n int) []touchpoints.Node {
		var out []touchpoints.Node
		for range n {
			a := node(touchpoints.DataAsset)
			a.Images = []string{"https://cdn.example.com/a.png"}
			out = append(out, a)
		}
		return out
	}
	var static, dyn, dynRoot []touchpoints.Node
	for i := range 10 {
		static = append(static, hydrated(node(touchpoints.DataStatic, assets(1)...), i))
		dyn = append(dyn, hydrated(node(touchpoints.DataStatic), 10+i))
		dynRoot = append(dynRoot, hydrated(node(touchpoints.DataStatic, assets(1)...), 20+i))
	}
	popup := node(touchpoints.DataAsset)
	static[0].Popup = &popup
	roots := []touchpoints.Node{node(touchpoints.DataAsset, assets(4)...), node(touchpoints.DataAsset, static...),
		node(touchpoints.DataAsset, append(dyn, assets(5)...)...)}
	roots = append(roots, dynRoot...)
	roots = append(roots, node(touchpoints.DataAsset, assets(14)...))
	return touchpoints.Tree{ID: uuid.New(), GameID: uuid.New(), Name: "Home Screen", Nodes: roots}
}

// plainNodeBody is a node's body converted value by value, each part allocated on its own: what
// nodeBodies must write.
func plainNodeBody(n touchpoints.Node) NodeBody {
	texts := func(list []touchpoints.TextItem) []TextItemBody {
		if list == nil {
			return nil
		}
		out := make([]TextItemBody, len(list))
		for i, t := range list {
			out[i] = TextItemBody(t)
		}
		return out
	}
	b := NodeBody{ID: n.ID.String(), DisplayOrder: n.DisplayOrder, Images: n.Images, AdditionalAssets: n.AdditionalAssets,
		Title: texts(n.Title), Subtitle: texts(n.Subtitle), DataType: string(n.DataType), ProductID: n.ProductID,
		LayoutHint: n.LayoutHint, StyleHint: n.StyleHint, ActionPrefix: n.ActionPrefix}
	if n.Background != nil {
		b.Background = &FillBody{Color: n.Background.Color, Gradient: n.Background.Gradient, Images: n.Background.Images, Opacity: n.Background.Opacity}
	}
	if n.Overlay != nil {
		b.Overlay = &FillBody{Color: n.Overlay.Color, Gradient: n.Overlay.Gradient, Images: n.Overlay.Images, Opacity: n.Overlay.Opacity}
	}
	if n.Badge != nil {
		b.Badge = &BadgeBody{Text: n.Badge.Text, BackgroundImage: n.Badge.BackgroundImage, Icon: n.Badge.Icon, Style: n.Badge.Style}
	}
	if n.CTA != nil {
		b.CTA = &NodeCTABody{Text: n.CTA.Text, Action: n.CTA.Action, BackgroundImage: n.CTA.BackgroundImage, FrontImage: n.CTA.FrontImage, Style: n.CTA.Style}
	}
	if n.Query != nil {
		b.Query = &QueryBody{Type: n.Query.Type, Category: n.Query.Category, Brand: n.Query.Brand, SortBy: n.Query.SortBy, Limit: n.Query.Limit}
	}
	if n.RewardID != nil {
		b.RewardID = n.RewardID.String()
	}
	if n.Nodes != nil {
		b.Nodes = make([]NodeBody, len(n.Nodes))
		for i, k := range n.Nodes {
			b.Nodes[i] = plainNodeBody(k)
		}
	}
	if n.Popup != nil {
		p := plainNodeBody(*n.Popup)
		b.Popup = &p
	}
	if d := n.Data; d != nil && d.Reward != nil {
		r := d.Reward
		rw, br := r.Reward, r.Brand
		expiry := ""
		if rw.EndDate != nil {
			expiry = rw.EndDate.UTC().Format(time.RFC3339)
		}
		inv := HydratedInventory{AvailableQuantity: -1, Type: "UNLIMITED"}
		if r.Free != nil {
			inv = HydratedInventory{AvailableQuantity: *r.Free, Type: "LIMITED"}
		}
		categories := br.Categories
		if categories == nil {
			categories = []string{}
		}
		b.Data = HydratedReward{Type: "REWARD", ID: rw.ID.String(), BrandID: br.Code, BrandName: br.Name, OrganizationID: br.OrganizationID(),
			IsActive: r.IsActive, BrandRedirectionLink: br.WebsiteURL,
			Metadata: HydratedRewardMetadata{BrandName: br.Name, BrandLogoImage: br.LogoURL, CampaignTitle: rw.CampaignTitle,
				CampaignSubTitle: rw.CampaignSubTitle, CampaignCoverImage: rw.CoverImage, CampaignDetails: rw.CampaignDetails,
				TermsAndConditions: rw.TermsAndConditions, HowToRedeem: rw.HowToRedeem, BrandRedirectionLink: br.WebsiteURL,
				CouponExpiryDate: expiry, Type: string(rw.Type), BrandCategory: categories, CouponExpiryDateExists: rw.EndDate != nil},
			Inventory: inv, Price: []HydratedPrice{{Amount: float64(r.CoinPrice), CoinID: r.CoinID.String()}}}
	} else if d != nil {
		p := d.Product
		b.Data = HydratedProduct{ID: p.Product.ID, Type: "PRODUCT", ProductID: p.Product.ID, Name: p.Product.Name, BrandName: p.Product.BrandName,
			ImageURL: p.Product.ImageURL, HeroImageURL: p.Product.HeroImageURL, Category: p.Product.Category, Rating: p.Product.Rating,
			ListingPrice: p.Product.ListingPrice.Units(), DiscountedListingPrice: p.Product.DiscountedListingPrice.Units(), MRP: p.Product.MRP.Units(),
			DiscountPercent: p.Pricing.DiscountPct.Float(), CoinSpread: p.Product.MaxCoinDiscountPct.Float(),
			CoinRequiredForDiscount: p.CoinsForDiscount, CoinsRequiredForMaxDiscount: p.CoinsForMax}
	}
	return b
}

// A served tree's body, cut from slabs with the core's parts seen as bodies, writes what a
// value-by-value conversion writes (with encoding/json, and with go-json as the API does): every
// part of a node (looks, badge, call to action, query, popup, empty and missing lists), reward
// data (pools, end dates, no categories) and product data.
func TestTreeBodyIsThePlainConversion(t *testing.T) {
	t.Parallel()
	tree := benchTree()
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	n := &tree.Nodes[1].Nodes[0]
	n.Overlay = &touchpoints.Fill{Gradient: "linear", Images: []string{"https://cdn.example.com/o.png"}}
	n.Badge = &touchpoints.Badge{Text: "new", Icon: "https://cdn.example.com/i.png", Style: map[string]any{"b": true}}
	n.Subtitle = []touchpoints.TextItem{{Text: "sub", Color: "#fff", FontWeight: "bold", Icon: "https://cdn.example.com/s.png"}}
	n.StyleHint, n.LayoutHint, n.AdditionalAssets = map[string]any{"x": 1.5}, "card", []string{"https://cdn.example.com/x.png"}
	n.Data.Reward.Reward.EndDate = &end
	n.Data.Reward.Brand.Categories = nil
	n.Popup.Nodes = []touchpoints.Node{}
	n.Popup.Popup = &touchpoints.Node{ID: uuid.New(), Query: &touchpoints.Query{Type: "rewards", Limit: 3}, ActionPrefix: "p/"}
	tree.Nodes[0].Nodes[1].ProductID = "sku-1"
	tree.Nodes[0].Nodes[1].Data = &touchpoints.Data{Product: &touchpoints.ProductData{Product: catalogue.Product{ID: "sku-1", Name: "Shoe",
		MRP: 100_00, DiscountedListingPrice: 80_00, MaxCoinDiscountPct: 2500}, CoinsForMax: 200, CoinsForDiscount: 150}}
	tree.Nodes[2].Nodes = []touchpoints.Node{}
	tree.Nodes = append(tree.Nodes, touchpoints.Node{ID: uuid.New()})

	for _, tree := range []touchpoints.Tree{tree, {ID: uuid.New(), Nodes: []touchpoints.Node{}}, {ID: uuid.New()}} {
		plain := TouchpointBody{ID: tree.ID.String(), GameID: tree.GameID.String(), Name: tree.Name, UpdatedAt: tree.UpdatedAt.UTC()}
		if tree.Nodes != nil {
			plain.Nodes = make([]NodeBody, len(tree.Nodes))
			for i, k := range tree.Nodes {
				plain.Nodes[i] = plainNodeBody(k)
			}
		}
		want, err := json.Marshal(plain)
		require.NoError(t, err)
		body := toTouchpointBody(tree)
		got, err := json.Marshal(body)
		require.NoError(t, err)
		require.True(t, string(want) == string(got), "encoding/json wrote %.2000s\nfor the plain conversion %.2000s", got, want)
		fast, err := gojson.Marshal(body)
		require.NoError(t, err)
		require.True(t, string(want) == string(fast), "go-json wrote %.2000s\nfor the plain conversion %.2000s", fast, want)
	}
}

// BenchmarkTreeBody converts a served tree (benchTree) to its body and writes it as the API
// does (go-json).
func BenchmarkTreeBody(b *testing.B) {
	tree := benchTree()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		enc := gojson.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(toTouchpointBody(tree)); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
