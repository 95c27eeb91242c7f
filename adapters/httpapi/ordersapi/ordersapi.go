// Package ordersapi serves the orders module over HTTP: a player's purchase of a reward with
// coins (POST /rewards/purchase), the player's orders, the studio's check that an order
// succeeded, and the operator's view of an order with its history.
package ordersapi

import (
	"net/http"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/orders"
)

// Tags of the orders operations on the docs page. Both are declared by the modules that own
// them (catalogueapi and playersapi); this package only uses the names.
const (
	tagRewards = "Rewards"
	tagPlayer  = "Player"
)

// idempotencyRule documents x-idempotency-key on the purchase.
const idempotencyRule = "**Idempotency.** With `x-idempotency-key` (1 to 255 characters, kept at least 24 hours, per player) the purchase happens at most once: " +
	"the same key with the same body replays the first answer, a refusal included, with `x-idempotent-replay: true` (a replayed order is shown as it is now); " +
	"the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; a duplicate arriving while the first is still running is 409 IDEMPOTENCY_IN_PROGRESS."

// sagaRule documents how a purchase is carried out.
const sagaRule = "**How it is carried out.** One transaction debits the coins (journal reason PURCHASE_DEBIT, webhook event COINS_DEBITED), creates the order INITIATED " +
	"and queues its fulfilment: nothing is taken without an order, nor an order made without its coins. A COUPON takes its codes in that transaction " +
	"(from its code pool, each code to one order, or its shared code) and a PHYSICAL good is placed; both answer SUCCESS. " +
	"A GIFT_CARD or DIGITAL_CREDIT is then sent to the voucher provider, with the order id as the provider's idempotent reference. " +
	"A final answer within `REWARDS_VOUCHER_WAIT` (default 5 s) is in this response (SUCCESS with its codes, or FAILED); otherwise the status is TIMEOUT " +
	"and the order is resolved later: read it at GET /player/orders/{orderId}. The provider is asked every `REWARDS_VOUCHER_POLL` until the order's deadline " +
	"(`REWARDS_VOUCHER_DEADLINE` after the purchase, default 24 h), then, while it still says pending or does not answer, less and less often " +
	"(each wait as long as the order has been late, at most 30 min) for up to a day more. The deadline alone refunds nothing the provider holds: " +
	"a card it issues late is delivered (SUCCESS), and the coins are refunded only when it refuses the order, or when it never received the order by the deadline. " +
	"An order with no final answer a day past its deadline stays TIMEOUT and waits for an operator, who settles it with the provider. " +
	"A failure refunds the coins in the transaction that marks the order FAILED, once " +
	"(journal reason REFUND_CREDIT, webhook event COINS_REFUNDED). States: INITIATED, PROCESSING, SUCCESS, FAILED, TIMEOUT."

// orderRule documents the order body players read.
const orderRule = "Each order is `{orderId, status, rewardId, type, coinId, coinsSpent, balance, denomination, quantity, faceValue, codes, createdAt}` as POST /rewards/purchase answers it: " +
	"money in units of the deployment currency, `faceValue` = denomination × quantity, `balance` the player's balance of `coinId` at the time of the answer, " +
	"`codes` `[{code, pin, providerVoucherId, value, expiry}]` (empty until SUCCESS; codes are shown to their owner only)."

// Register adds the orders operations to s.
func Register(s *httpapi.Server, svc *orders.Service) {
	ops := httpapi.Operations{API: s.API, Auth: s.Player, Tags: []string{tagPlayer}}
	h := handlers{svc: svc}

	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.Player, Tags: []string{tagRewards}}, httpapi.WithStatus(http.StatusOK, httpapi.Op("rewards-purchase", http.MethodPost, "/rewards/purchase", "Buy a reward with coins",
		"The token's player buys `quantity` (1 to 5, default 1) units of `rewardId`, paying in `coinId`: the coin price of the face value × quantity (see GET /rewards/fetch/{rewardId}). "+
			"`denomination` (units of the currency, at most two decimals) is required for a RANGE reward and for a FIXED one with several values; "+
			"a PHYSICAL good needs `addressId`, the 1-based position of one of the player's gcommerce addresses (India only). "+
			"The answer is the order: `{orderId, status, rewardId, type, coinId, coinsSpent, balance, denomination, quantity, faceValue, codes: [{code, pin, providerVoucherId, value, expiry}], createdAt}`, "+
			"money in units, `faceValue` the face value × quantity, `balance` the player's balance of the coin after the purchase.\n\n"+
			sagaRule+"\n\n"+idempotencyRule+"\n\n"+
			"**Errors.** 404 REWARD_NOT_FOUND (a reward the game's players do not see, or an unknown or malformed id); 404 COIN_NOT_FOUND (a coin of another game, or a malformed id); "+
			"400 PURCHASE_COOLDOWN (a code was already requested for this offer: wait before requesting another; `Retry-After` says how long); 400 INSUFFICIENT_BALANCE; "+
			"400 OUT_OF_STOCK; 400 DENOMINATION_NOT_AVAILABLE (a face value the reward does not offer); 400 REWARD_EXPIRED; 400 ADDRESS_REQUIRED; "+
			"400 VALIDATION_FAILED (a missing denomination where one is required, a denomination with more than two decimals, a quantity out of range); "+
			"409 IDEMPOTENCY_IN_PROGRESS; 422 IDEMPOTENCY_KEY_REUSED; "+
			"429 PURCHASE_BUDGET_EXCEEDED (the game's store purchases of this environment and UTC day would pass the budget the operator set, by face value: live 100,000 by default, test unlimited; `Retry-After` says when the next UTC day starts; a failed, refunded order gives its share back); "+
			"502 when the voucher provider cannot tell its stock. A refusal takes no coins.\n\n"+
			"**Environments.** Test-environment orders are fulfilled by the test environment's voucher provider (a provider's sandbox, or the built-in sandbox with `SANDBOX-` codes), never by the live provider, so test coins can never become real gift cards.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusTooManyRequests, http.StatusBadGateway)), h.purchase)

	httpapi.Register(ops, httpapi.Op("player-orders", http.MethodGet, "/player/orders", "The player's orders",
		"FetchOrdersResponseDto `{items, page, limit, total}`: the token's player's orders, newest first, paginated (`limit` default 10, at most 100; `page` from 1). "+
			orderRule+" `rewardId` keeps the orders of one reward; a filter is not a lookup, so an id that names no reward, malformed or not, gives an empty page (never a 404). "+
			"`x-language` is required; `api-version` and `x-api-version` are accepted and change nothing.",
		http.StatusBadRequest), h.listOrders)

	httpapi.Register(ops, httpapi.Op("player-order", http.MethodGet, "/player/orders/{orderId}", "One of the player's orders",
		"The order as it is now: read it to follow a purchase that answered TIMEOUT until it is SUCCESS (with its codes) or FAILED (coins refunded). "+
			orderRule+" 404 ORDER_NOT_FOUND for another player's order, or an unknown or malformed id. "+
			"`x-language` is required; `api-version` and `x-api-version` are accepted and change nothing.",
		http.StatusBadRequest, http.StatusNotFound), h.getOrder)

	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: []string{tagRewards}}, httpapi.Op("rewards-verify-order", http.MethodGet, "/rewards/orders/{orderId}/verify", "Check that an order succeeded",
		"For the studio's servers: the API key alone, no player token. The body is a bare JSON boolean: `true` only for a SUCCESS order of the key's game and environment; "+
			"`false` for any other order (in progress, TIMEOUT, FAILED, another game's or environment's) and for an unknown or malformed id. Never 404."), h.verify)

	httpapi.Register(httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}, httpapi.Op("admin-get-order", http.MethodGet, "/admin/v1/orders/{orderId}", "An order with its history",
		"Any order of any game: its state, what it cost and delivered (`codeCount`: codes and pins stay sealed, shown to their owner only), the failure reason, "+
			"the deadline (`deadlineAt`: past it an order the provider never received is failed and refunded, and one it holds is asked less and less often until it answers finally; "+
			"one still without a final answer a day past it is asked no more, stays TIMEOUT and waits for an operator, counted in `rewards_orders_awaiting_operator`), "+
			"the delivery address of a PHYSICAL good, "+
			"and every transition `{from, to, reason, at}`, oldest first (`from` is null on the first). 404 ORDER_NOT_FOUND for an unknown or malformed id.",
		http.StatusNotFound), h.adminGetOrder)
}
