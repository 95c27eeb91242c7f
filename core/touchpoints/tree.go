package touchpoints

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/weburl"
)

// Limits of a tree.
const (
	MaxNodes = 500
	MaxDepth = 6
	// MaxServedNodes bounds a tree as served, DYNAMIC nodes expanded, popups included: a tree
	// that could serve more is refused on write (TREE_TOO_LARGE), and the expander never emits
	// more whatever is stored.
	MaxServedNodes = 2000
	// MaxDynamicNodes bounds the DYNAMIC nodes of a tree: each is a query on every read.
	MaxDynamicNodes = 10
	// MaxListedTrees bounds the trees of one page of a game's trees (Service.Trees).
	MaxListedTrees = 100
	MaxQueryLimit  = 20
	MaxNameLen     = 128
	maxFieldLength = 2048
)

// DataType says where a node's content comes from.
type DataType string

// The data types of nodes.
const (
	// Asset nodes are purely visual.
	DataAsset DataType = "ASSET"
	// DataStatic nodes point at one reward or product (theirs or a descendant's).
	DataStatic DataType = "STATIC"
	// DataDynamic nodes carry a query; serving replaces each with one sibling per matching item.
	DataDynamic DataType = "DYNAMIC"
)

// Query types of DYNAMIC nodes.
const (
	QueryRewards  = "rewards"
	QueryProducts = "products"
)

// Fill is a node's background or overlay.
type Fill struct {
	Color    string   `json:"color,omitempty"`
	Gradient string   `json:"gradient,omitempty"`
	Images   []string `json:"images,omitempty"`
	Opacity  *float64 `json:"opacity,omitempty"`
}

// TextItem is one run of a node's title or subtitle.
type TextItem struct {
	Text       string  `json:"text,omitempty"`
	Color      string  `json:"color,omitempty"`
	FontWeight string  `json:"fontWeight,omitempty"`
	FontSize   float64 `json:"fontSize,omitempty"`
	Icon       string  `json:"icon,omitempty"`
}

// Badge is a node's badge.
type Badge struct {
	Text            string         `json:"text,omitempty"`
	BackgroundImage string         `json:"backgroundImage,omitempty"`
	Icon            string         `json:"icon,omitempty"`
	Style           map[string]any `json:"style,omitempty"`
}

// CTA is a node's call to action; Action is not interpreted by the service.
type CTA struct {
	Text            string         `json:"text,omitempty"`
	Action          string         `json:"action,omitempty"`
	BackgroundImage string         `json:"backgroundImage,omitempty"`
	FrontImage      string         `json:"frontImage,omitempty"`
	Style           map[string]any `json:"style,omitempty"`
}

// Query is what a DYNAMIC node lists: rewards the game's players see or active products,
// filtered by category and brand, first Limit in SortBy order.
type Query struct {
	Type     string `json:"type"`
	Category string `json:"category,omitempty"`
	Brand    string `json:"brand,omitempty"`
	SortBy   string `json:"sortBy,omitempty"`
	Limit    int    `json:"limit,omitempty"`
}

// Node is one element of a 1.0 tree. The JSON form is how storage keeps it; Data is filled
// only when served with a coin.
type Node struct {
	ID               uuid.UUID      `json:"id"`
	DisplayOrder     int            `json:"displayOrder"`
	Background       *Fill          `json:"background,omitempty"`
	Overlay          *Fill          `json:"overlay,omitempty"`
	Images           []string       `json:"images,omitempty"`
	AdditionalAssets []string       `json:"additionalAssets,omitempty"`
	Title            []TextItem     `json:"title,omitempty"`
	Subtitle         []TextItem     `json:"subtitle,omitempty"`
	Badge            *Badge         `json:"badge,omitempty"`
	CTA              *CTA           `json:"cta,omitempty"`
	DataType         DataType       `json:"dataType"`
	RewardID         *uuid.UUID     `json:"rewardId,omitempty"`
	ProductID        string         `json:"productId,omitempty"`
	LayoutHint       string         `json:"layoutHint,omitempty"`
	StyleHint        map[string]any `json:"styleHint,omitempty"`
	Query            *Query         `json:"query,omitempty"`
	ActionPrefix     string         `json:"actionPrefix,omitempty"`
	Nodes            []Node         `json:"nodes,omitempty"`
	Popup            *Node          `json:"popup,omitempty"`
	Data             *Data          `json:"-"`
}

// Tree is a 1.0 touchpoint: named nodes a game renders itself.
type Tree struct {
	ID        uuid.UUID
	GameID    uuid.UUID
	Name      string
	Nodes     []Node
	UpdatedAt time.Time
	// Served is the most nodes the tree serves: ServedSize of its nodes when written (a tree
	// stored before it was kept holds MaxServedNodes, which bounds every tree).
	Served int
}

// Data is a STATIC or generated node's hydrated item: exactly one of the two.
type Data struct {
	Reward  *RewardData
	Product *ProductData
}

// RewardItem is a reward as a game sees it.
type RewardItem struct {
	Reward catalogue.Reward
	Brand  catalogue.Brand
	Hidden bool
	// Override is the game's coin price of the smallest face value for the coin asked for.
	Override *int64
	// Free is the unused codes of a coupon with a pool; nil when it has none (unlimited, or
	// the voucher provider's stock).
	Free *int64
}

// Active reports whether the game's players see the reward at now.
func (r RewardItem) Active(now time.Time) bool {
	return catalogue.Visible(r.Reward, r.Brand, r.Hidden, "", now)
}

// InStock reports whether a player could get the reward: a coupon with a pool needs a free
// code; the provider's stock is not asked on this path (it answers at purchase).
func (r RewardItem) InStock() bool { return r.Free == nil || *r.Free > 0 }

// RewardData is a hydrated reward. Its RewardItem is shared by the nodes that show it, to read
// only.
type RewardData struct {
	*RewardItem
	IsActive bool
	// CoinID and CoinPrice: the price of the smallest face value in the coin asked for.
	CoinID    uuid.UUID
	CoinPrice int64
}

// ProductData is a hydrated product with its coin figures.
type ProductData struct {
	Product catalogue.Product
	Pricing Pricing
	// CoinsForMax is the coins that pay the whole share coins may pay; CoinsForDiscount those
	// the player's balance affords of it (CoinsForMax without a player token).
	CoinsForMax      int64
	CoinsForDiscount int64
}

// ValidName reports whether name can name a tree: 1 to 128 characters, no slash or control
// character (it travels in a path).
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen || strings.ContainsRune(name, '/') {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// refs are the catalogue items a tree names.
type refs struct {
	rewards  []uuid.UUID
	products []string
	dynamic  []*Node
}

// checker validates a tree and gives ids to nodes that have none.
type checker struct {
	count     int
	dynamic   int // DYNAMIC nodes seen
	inDynamic int // how many DYNAMIC ancestors the node being checked has
	ids       map[uuid.UUID]bool
	refs      refs
	allowHTTP bool // image addresses may be plain http (outside production)
}

// validateTree checks the rules of a tree and returns the items it names (image addresses may
// be http, as outside production).
func validateTree(nodes []Node) (refs, error) { return validateTreeWith(nodes, true) }

// validateTreeWith is validateTree with the deployment's rule for image addresses.
func validateTreeWith(nodes []Node, allowHTTP bool) (refs, error) {
	c := &checker{ids: map[uuid.UUID]bool{}, allowHTTP: allowHTTP}
	if err := c.list("nodes", nodes, 1); err != nil {
		return refs{}, err
	}
	if n := ServedSize(nodes); n > MaxServedNodes {
		return refs{}, ErrTreeTooLarge.Withf("this tree could serve %d nodes once its DYNAMIC nodes are expanded (each serves up to its query's limit of copies of itself and its descendants); at most %d", n, MaxServedNodes)
	}
	return c.refs, nil
}

func (c *checker) list(path string, nodes []Node, depth int) error {
	if len(nodes) > 0 && depth > MaxDepth {
		return errs.Invalidf("%s: a tree may be at most %d levels deep", path, MaxDepth)
	}
	for i := range nodes {
		if err := c.node(fmt.Sprintf("%s[%d]", path, i), &nodes[i], depth, false); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) node(path string, n *Node, depth int, popup bool) error {
	if c.count++; c.count > MaxNodes {
		return errs.Invalidf("a tree may have at most %d nodes, popups included", MaxNodes)
	}
	if n.ID == uuid.Nil {
		n.ID = uuid.New()
	}
	if err := c.images(path, n); err != nil {
		return err
	}
	if c.ids[n.ID] {
		return errs.Invalidf("%s.id: %s is used by another node of the tree", path, n.ID)
	}
	c.ids[n.ID] = true
	if n.DataType == "" {
		n.DataType = DataAsset
	}
	if err := checkLooks(path, n); err != nil {
		return err
	}
	linked := n.RewardID != nil || n.ProductID != ""
	if n.RewardID != nil && n.ProductID != "" {
		return errs.Invalidf("%s: a node links a reward or a product, not both", path)
	}
	if len(n.ProductID) > 128 {
		return errs.Invalidf("%s.productId must be at most 128 characters", path)
	}
	switch n.DataType {
	case DataAsset:
		if linked || n.Query != nil || n.ActionPrefix != "" {
			return errs.Invalidf("%s: an ASSET node has no rewardId, productId, query or actionPrefix", path)
		}
	case DataStatic:
		if n.Query != nil || n.ActionPrefix != "" {
			return errs.Invalidf("%s: a STATIC node has no query or actionPrefix", path)
		}
		if !linked && !linksBelow(*n) {
			return errs.Invalidf("%s: a STATIC node needs a rewardId or productId, on itself or a descendant", path)
		}
	case DataDynamic:
		if popup {
			return errs.Invalidf("%s: a popup cannot be DYNAMIC (it would expand into several)", path)
		}
		if linked {
			return errs.Invalidf("%s: a DYNAMIC node has a query, not a rewardId or productId", path)
		}
		if c.inDynamic > 0 {
			return errs.Invalidf("%s: a DYNAMIC node cannot be under another DYNAMIC node (each would multiply the other)", path)
		}
		if c.dynamic++; c.dynamic > MaxDynamicNodes {
			return errs.Invalidf("%s: a tree may have at most %d DYNAMIC nodes", path, MaxDynamicNodes)
		}
		if err := checkQuery(path, n); err != nil {
			return err
		}
		c.refs.dynamic = append(c.refs.dynamic, n)
	default:
		return errs.Invalidf("%s.dataType must be ASSET, STATIC or DYNAMIC", path)
	}
	if n.RewardID != nil && !slices.Contains(c.refs.rewards, *n.RewardID) {
		c.refs.rewards = append(c.refs.rewards, *n.RewardID)
	}
	if n.ProductID != "" && !slices.Contains(c.refs.products, n.ProductID) {
		c.refs.products = append(c.refs.products, n.ProductID)
	}
	if n.DataType == DataDynamic {
		c.inDynamic++
		defer func() { c.inDynamic-- }()
	}
	if err := c.list(path+".nodes", n.Nodes, depth+1); err != nil {
		return err
	}
	if n.Popup != nil {
		if depth+1 > MaxDepth {
			return errs.Invalidf("%s.popup: a tree may be at most %d levels deep", path, MaxDepth)
		}
		return c.node(path+".popup", n.Popup, depth+1, true)
	}
	return nil
}

// images checks every image address of a node: web addresses only (weburl).
func (c *checker) images(path string, n *Node) error {
	check := func(field string, list ...string) error {
		for i, v := range list {
			f := field
			if len(list) > 1 || strings.HasSuffix(field, "s") {
				f = fmt.Sprintf("%s[%d]", field, i)
			}
			if err := weburl.Check(path+"."+f, v, c.allowHTTP, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check("images", n.Images...); err != nil {
		return err
	}
	if err := check("additionalAssets", n.AdditionalAssets...); err != nil {
		return err
	}
	for name, f := range map[string]*Fill{"background": n.Background, "overlay": n.Overlay} {
		if f != nil {
			if err := check(name+".images", f.Images...); err != nil {
				return err
			}
		}
	}
	if n.Badge != nil {
		if err := check("badge.backgroundImage", n.Badge.BackgroundImage); err != nil {
			return err
		}
	}
	if n.CTA != nil {
		if err := check("cta.backgroundImage", n.CTA.BackgroundImage); err != nil {
			return err
		}
		if err := check("cta.frontImage", n.CTA.FrontImage); err != nil {
			return err
		}
	}
	return nil
}

// ServedSize is how many nodes nodes can serve at most: a DYNAMIC node serves up to its query's
// limit (10 when unset) copies of itself with its descendants and popup.
func ServedSize(nodes []Node) int {
	total := 0
	for _, n := range nodes {
		total += servedSize(n)
		if total > MaxServedNodes*MaxQueryLimit {
			return total // far past any bound; stop before the sums could grow further
		}
	}
	return total
}

func servedSize(n Node) int {
	inner := 1 + ServedSize(n.Nodes)
	if n.Popup != nil {
		inner += servedSize(*n.Popup)
	}
	if n.DataType == DataDynamic {
		limit := MaxQueryLimit
		switch {
		case n.Query != nil && n.Query.Limit == 0:
			limit = 10 // the default a read applies
		case n.Query != nil && n.Query.Limit < MaxQueryLimit:
			limit = max(n.Query.Limit, 1)
		}
		return limit * inner
	}
	return inner
}

func linksBelow(n Node) bool {
	for _, k := range n.Nodes {
		if k.RewardID != nil || k.ProductID != "" || linksBelow(k) {
			return true
		}
	}
	return n.Popup != nil && (n.Popup.RewardID != nil || n.Popup.ProductID != "" || linksBelow(*n.Popup))
}

func checkQuery(path string, n *Node) error {
	q := n.Query
	if q == nil {
		return errs.Invalidf("%s: a DYNAMIC node needs a query {type: rewards|products, category?, brand?, sortBy?, limit ≤ %d}", path, MaxQueryLimit)
	}
	if q.Type != QueryRewards && q.Type != QueryProducts {
		return errs.Invalidf("%s.query.type must be rewards or products", path)
	}
	if q.SortBy == "" {
		q.SortBy = SortDefault
	}
	if !slices.Contains(SortOrders, q.SortBy) {
		return errs.Invalidf("%s.query.sortBy must be one of %s", path, strings.Join(SortOrders, ", "))
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	if q.Limit < 1 || q.Limit > MaxQueryLimit {
		return errs.Invalidf("%s.query.limit must be from 1 to %d", path, MaxQueryLimit)
	}
	if len(q.Category) > 128 || len(q.Brand) > 128 {
		return errs.Invalidf("%s.query: category and brand must be at most 128 characters", path)
	}
	if n.ActionPrefix == "" || len(n.ActionPrefix) > maxFieldLength {
		return errs.Invalidf("%s.actionPrefix is required for a DYNAMIC node (cta.action = actionPrefix + item id), at most %d characters", path, maxFieldLength)
	}
	return nil
}

func checkLooks(path string, n *Node) error {
	for name, f := range map[string]*Fill{"background": n.Background, "overlay": n.Overlay} {
		if f != nil && f.Opacity != nil && (*f.Opacity < 0 || *f.Opacity > 1) {
			return errs.Invalidf("%s.%s.opacity must be from 0 to 1", path, name)
		}
	}
	for _, t := range append(slices.Clone(n.Title), n.Subtitle...) {
		if t.FontSize < 0 || t.FontSize > 1000 {
			return errs.Invalidf("%s: fontSize must be from 0 to 1000", path)
		}
	}
	return nil
}

// expander builds the served form of trees: DYNAMIC nodes replaced by their items, data
// filled when a coin was asked for.
type expander struct {
	// left is how many more nodes the expander may emit (MaxServedNodes at the start): a tree
	// stored before the limits held, or a bug, can never serve more.
	left int
	// rewards and products are the items of STATIC nodes, by id; shared by the nodes that name
	// them, to read only.
	rewards  map[uuid.UUID]*RewardItem
	products map[string]*catalogue.Product
	// dynamic are the items each DYNAMIC node's query found, by node id.
	dynamic  map[uuid.UUID][]dynItem
	coin     *Coin
	currency string
	now      time.Time
}

// dynItem is one item a DYNAMIC query found: a reward or a product.
type dynItem struct {
	reward  *RewardItem
	product *catalogue.Product
}

func (d dynItem) id() string {
	if d.reward != nil {
		return d.reward.Reward.ID.String()
	}
	return d.product.ID
}

func (e *expander) nodes(in []Node) []Node {
	assets, all := assetsOnly(in)
	return e.nodesOf(in, assets, all)
}

// nodesOf is nodes for a list whose assetsOnly answer is known (assets, all): a DYNAMIC node's
// children, served under each of its items, are looked at once.
func (e *expander) nodesOf(in []Node, assets int, all bool) []Node {
	if len(in) == 0 {
		return nil
	}
	if all && assets <= e.left {
		// Served as stored, in full: the stored nodes themselves (shared, to read only).
		e.left -= assets
		return in
	}
	// As many nodes as in serves (a DYNAMIC node one per item), within the budget.
	size := 0
	for i := range in {
		if in[i].DataType == DataDynamic {
			size += len(e.dynamic[in[i].ID])
		} else {
			size++
		}
	}
	out := make([]Node, 0, min(size, max(e.left, 0)))
	for i := range in {
		if e.left <= 0 {
			break
		}
		if in[i].DataType == DataDynamic {
			out = e.expand(out, &in[i])
			continue
		}
		out = append(out, e.node(in[i]))
	}
	return out
}

// assetsOnly reports whether list and everything below it (popups included) are ASSET nodes,
// which serving leaves as they are, and how many nodes that is.
func assetsOnly(list []Node) (int, bool) {
	total := 0
	for i := range list {
		n, ok := assetOnly(&list[i])
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

func assetOnly(k *Node) (int, bool) {
	if k.DataType != DataAsset {
		return 0, false
	}
	n, ok := assetsOnly(k.Nodes)
	if !ok {
		return 0, false
	}
	if k.Popup != nil {
		p, ok := assetOnly(k.Popup)
		if !ok {
			return 0, false
		}
		n += p
	}
	return n + 1, true
}

// node serves a node (counting it against the budget) with its descendants.
func (e *expander) node(n Node) Node {
	e.left--
	n.Nodes = e.nodes(n.Nodes)
	if n.Popup != nil && e.left > 0 {
		p := e.node(*n.Popup)
		n.Popup = &p
	} else {
		n.Popup = nil
	}
	if n.DataType == DataStatic && e.coin != nil {
		switch {
		case n.RewardID != nil:
			if r, ok := e.rewards[*n.RewardID]; ok {
				n.Data = e.rewardData(r)
			}
		case n.ProductID != "":
			if p, ok := e.products[n.ProductID]; ok {
				n.Data = e.productData(p)
			}
		}
	}
	return n
}

// expand replaces a DYNAMIC node with one sibling per item, appended to out: the node's looks
// and children, an id derived from the node's and the item's (stable across calls), the item's
// id, and cta.action = actionPrefix + item id.
func (e *expander) expand(out []Node, n *Node) []Node {
	assets, all := assetsOnly(n.Nodes)
	for _, it := range e.dynamic[n.ID] {
		if e.left <= 0 {
			break
		}
		e.left--
		itemID := it.id()
		g := *n
		g.ID = uuid.NewSHA1(n.ID, []byte(itemID))
		g.Query, g.ActionPrefix = nil, ""
		cta := CTA{}
		if n.CTA != nil {
			cta = *n.CTA
		}
		cta.Action = n.ActionPrefix + itemID
		g.CTA = &cta
		g.Nodes = e.nodesOf(n.Nodes, assets, all)
		if n.Popup != nil && e.left > 0 {
			p := e.node(*n.Popup)
			g.Popup = &p
		} else {
			g.Popup = nil
		}
		if it.reward != nil {
			g.RewardID = &it.reward.Reward.ID // shared, to read only
			if e.coin != nil {
				g.Data = e.rewardData(it.reward)
			}
		} else {
			g.ProductID = it.product.ID
			if e.coin != nil {
				g.Data = e.productData(it.product)
			}
		}
		out = append(out, g)
	}
	return out
}

func (e *expander) rewardData(r *RewardItem) *Data {
	price := r.Reward.CoinPrice(r.Reward.MinFace(), e.coin.CoinsPerUnit, r.Override)
	return &Data{Reward: &RewardData{RewardItem: r, IsActive: r.Active(e.now), CoinID: e.coin.ID, CoinPrice: price}}
}

func (e *expander) productData(pp *catalogue.Product) *Data {
	p := *pp
	uncapped := *e.coin
	uncapped.Balance = nil
	pricing, most := Quote(e.currency, p.MRP, p.DiscountedListingPrice, p.MaxCoinDiscountPct, &uncapped)
	_, afford := Quote(e.currency, p.MRP, p.DiscountedListingPrice, p.MaxCoinDiscountPct, e.coin)
	d := &ProductData{Product: p, Pricing: pricing}
	if most != nil {
		d.CoinsForMax = most.CoinsRequired
	}
	if afford != nil {
		d.CoinsForDiscount = afford.CoinsRequired
	}
	return &Data{Product: d}
}
