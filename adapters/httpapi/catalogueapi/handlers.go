package catalogueapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/studio"
)

// handlers serve the catalogue operations: each decodes its input, makes one core call and
// encodes the answer.
type handlers struct{ svc *catalogue.Service }

// ---- Operator ----

func (h handlers) putCategory(ctx context.Context, in *putCategoryInput) (*categoryOutput, error) {
	c := in.category()
	created, err := h.svc.PutCategory(ctx, c)
	return httpapi.ReplyPut(ctx, c, created, err, toCategoryBody)
}

func (h handlers) putBrand(ctx context.Context, in *putBrandInput) (*brandOutput, error) {
	b := in.brand()
	created, err := h.svc.PutBrand(ctx, b)
	return httpapi.ReplyPut(ctx, b, created, err, toBrandBody)
}

func (h handlers) createReward(ctx context.Context, in *createRewardInput) (*rewardOutput, error) {
	n, err := in.newReward(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.CreateReward(ctx, n)
	return httpapi.Reply(ctx, r, err, toRewardBody)
}

func (h handlers) updateReward(ctx context.Context, in *updateRewardInput) (*rewardOutput, error) {
	id, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	ch, err := in.change(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.ChangeReward(ctx, id, ch)
	return httpapi.Reply(ctx, r, err, toRewardBody)
}

func (h handlers) listRewards(ctx context.Context, in *listRewardsInput) (*rewardsOutput, error) {
	list, total, err := h.svc.ListRewards(ctx, catalogue.AdminFilter{Type: catalogue.Type(in.Type), BrandCode: in.BrandCode,
		Active: in.Active.ptr(), Limit: in.Limit, Offset: in.Offset()})
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &rewardsOutput{Body: httpapi.PageOf(in.PageQuery, list, total, toRewardBody)}, nil
}

func (h handlers) getReward(ctx context.Context, in *rewardIDInput) (*rewardOutput, error) {
	id, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	r, err := h.svc.GetReward(ctx, id)
	return httpapi.Reply(ctx, r, err, toRewardBody)
}

func (h handlers) addCodes(ctx context.Context, in *addCodesInput) (*codesOutput, error) {
	id, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	added, free, err := h.svc.AddCodes(ctx, id, in.codes())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &codesOutput{Body: CodesAddedBody{Added: added, Available: free}}, nil
}

func (h handlers) putProduct(ctx context.Context, in *putProductInput) (*productOutput, error) {
	p, err := in.product(ctx)
	if err != nil {
		return nil, err
	}
	created, err := h.svc.PutProduct(ctx, p)
	return httpapi.ReplyPut(ctx, p, created, err, toProductBody)
}

func (h handlers) setGameReward(ctx context.Context, in *setGameRewardInput) (*gameRewardOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	rewardID, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	ch, err := in.change(ctx)
	if err != nil {
		return nil, err
	}
	g, err := h.svc.ChangeGameReward(ctx, gameID, rewardID, ch)
	return httpapi.Reply(ctx, g, err, toGameRewardBody)
}

func (h handlers) sync(ctx context.Context, _ *struct{}) (*syncOutput, error) {
	st, err := h.svc.Sync(ctx)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &syncOutput{Body: SyncBody{Created: st.Created, Updated: st.Updated, Deactivated: st.Deactivated}}, nil
}

// ---- Store ----

// shapeB reports whether a GET /rewards asks for shape B.
func (in *listInput) shapeB() bool {
	return strings.TrimSpace(in.APIVersion) == "2" || strings.TrimSpace(in.APIVersionHeader) == "2"
}

func (in *listInput) query(ctx context.Context) (catalogue.ListQuery, error) {
	coinID, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return catalogue.ListQuery{}, httpapi.ErrorFrom(ctx, err)
	}
	ids, err := rewardIDs(ctx, in.RewardIDs)
	if err != nil {
		return catalogue.ListQuery{}, err
	}
	return catalogue.ListQuery{GameID: httpapi.CallerFrom(ctx).GameID, Environment: httpapi.CallerFrom(ctx).Environment, CoinID: coinID, Category: in.Category, Brand: in.Brand,
		GiftCard: in.GiftCard.ptr(), RewardIDs: ids, Country: strings.ToUpper(in.Country), Dedupe: in.Dedupe,
		Order: catalogue.ContentLogics[in.ContentLogic], Limit: in.Limit, Offset: in.Offset()}, nil
}

func (h handlers) list(ctx context.Context, in *listInput) (*listOutput, error) {
	q, err := in.query(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := h.svc.List(ctx, q)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	v := storeView{lang: in.Language, coinID: q.CoinID}
	return &listOutput{Body: httpapi.PageOf(in.PageQuery, list, total, v.listItem(in.shapeB()))}, nil
}

func (h handlers) brands(ctx context.Context, in *brandsInput) (*brandsOutput, error) {
	list, err := h.svc.Brands(ctx, httpapi.CallerFrom(ctx).GameID, in.GiftCard.ptr(), in.Category)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &brandsOutput{Body: httpapi.Map(list, storeView{lang: in.Language}.brandMeta)}, nil
}

func (h handlers) categories(ctx context.Context, in *categoriesInput) (*categoriesOutput, error) {
	list, err := h.svc.Categories(ctx, httpapi.CallerFrom(ctx).GameID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &categoriesOutput{Body: httpapi.Map(list, storeView{lang: in.Language}.categoryMeta)}, nil
}

func (h handlers) fetch(ctx context.Context, in *fetchInput) (*detailOutput, error) {
	rewardID, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	coinID, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	q := catalogue.ListQuery{GameID: httpapi.CallerFrom(ctx).GameID, Environment: httpapi.CallerFrom(ctx).Environment, CoinID: coinID}
	d, err := h.svc.Fetch(ctx, q, rewardID, httpapi.PlayerFrom(ctx).ID)
	return httpapi.Reply(ctx, d, err, storeView{lang: in.Language, coinID: coinID}.detail)
}

func (h handlers) redirectionLink(ctx context.Context, in *linkInput) (*linkOutput, error) {
	rewardID, err := httpapi.ParseID(in.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	url, err := h.svc.RedirectionLink(ctx, catalogue.ListQuery{GameID: httpapi.CallerFrom(ctx).GameID}, httpapi.PlayerFrom(ctx).ID, rewardID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &linkOutput{Body: LinkBody{URL: url}}, nil
}

func (h handlers) search(ctx context.Context, in *searchInput) (*searchOutput, error) {
	coinID, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	q := catalogue.SearchQuery{
		ListQuery: catalogue.ListQuery{GameID: httpapi.CallerFrom(ctx).GameID, Environment: httpapi.CallerFrom(ctx).Environment, CoinID: coinID, Country: strings.ToUpper(in.Country),
			Order: catalogue.SortBys[in.SortBy], Limit: in.Limit, Offset: in.Offset()},
		Text: in.Q, Brands: in.Brand, Categories: in.Category,
	}
	var kinds []string
	if in.Type != "" {
		kinds = []string{in.Type}
	}
	res, err := h.svc.Search(ctx, q, kinds)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &searchOutput{Body: storeView{lang: in.Language, coinID: coinID}.search(res, in.PageQuery)}, nil
}

func (h handlers) follow(ctx context.Context, in *followInput) (*redirectOutput, error) {
	to, err := h.svc.FollowLink(ctx, in.Code)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &redirectOutput{Status: http.StatusFound, Location: to, CacheControl: "no-store"}, nil
}
