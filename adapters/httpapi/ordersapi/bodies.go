package ordersapi

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
)

// Schema names are global to the OpenAPI document (Huma panics on a duplicate), so every body
// here is named after orders: catalogueapi already has a CodeBody.

// Money in every body is a JSON number of units of the deployment currency with at most two
// decimals (500, 10.99). The enums of status and type are orders.Statuses and the catalogue's
// types; a test keeps them equal.

// PurchaseBody is PurchaseRewardDto, the body of POST /rewards/purchase. The ids are plain
// strings: an id is opaque to clients, so a malformed one is as unknown as any other (404).
type PurchaseBody struct {
	RewardID     string   `json:"rewardId" doc:"The reward to buy: one the game's players see (404 REWARD_NOT_FOUND otherwise)" example:"9f0c3b52-4a57-4a38-9d0e-0d5c1f1a6b11"`
	CoinID       string   `json:"coinId" doc:"The coin that pays: one of the key's game (404 COIN_NOT_FOUND otherwise)" example:"2b7e1a40-6c1d-4c55-8f0a-3e9d2c4b5a61"`
	Denomination *float64 `json:"denomination,omitempty" minimum:"0" doc:"Face value of one unit, in units of the currency with at most two decimals. Required for RANGE rewards and FIXED rewards with several values; may be left out when the reward has one value" example:"500"`
	Quantity     int      `json:"quantity,omitempty" minimum:"1" maximum:"5" default:"1" doc:"Units to buy, 1 to 5: the coins, the face value and the codes are multiplied by it" example:"1"`
	AddressID    string   `json:"addressId,omitempty" maxLength:"16" doc:"PHYSICAL rewards only: the 1-based position of one of the player's gcommerce addresses (India only); missing or no such address is 400 ADDRESS_REQUIRED" example:"1"`
}

// OrderCodeBody is one code an order delivered.
type OrderCodeBody struct {
	Code              string     `json:"code" doc:"The code to redeem" example:"AMZN-7KQ2-9XPL-44RT"`
	Pin               *string    `json:"pin" doc:"Its pin, or null" example:"4821"`
	ProviderVoucherID *string    `json:"providerVoucherId" doc:"The voucher provider's id of the card, or null (coupons)" example:"V-100234"`
	Value             float64    `json:"value" doc:"Face value of the code, in units of the currency" example:"500"`
	Expiry            *time.Time `json:"expiry" doc:"When the code expires, or null"`
}

// PlayerOrderBody is an order as its owner sees it: PurchaseRewardResponseDto, and an item of
// FetchOrdersResponseDto.
type PlayerOrderBody struct {
	OrderID      uuid.UUID       `json:"orderId" doc:"Order id"`
	Status       string          `json:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"SUCCESS: delivered; FAILED: not delivered, coins refunded; TIMEOUT: the provider has not answered yet, read the order again later; INITIATED and PROCESSING: in progress" example:"SUCCESS"`
	RewardID     uuid.UUID       `json:"rewardId" doc:"The reward bought"`
	Type         string          `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward" example:"GIFT_CARD"`
	CoinID       uuid.UUID       `json:"coinId" doc:"The coin that paid"`
	CoinsSpent   int64           `json:"coinsSpent" doc:"Coins debited for the whole order (refunded when it FAILED)" example:"9500"`
	Balance      int64           `json:"balance" doc:"The player's balance of coinId at the time of this answer (just after the debit, in the purchase's answer)" example:"500"`
	Denomination float64         `json:"denomination" doc:"Face value of one unit, in units of the currency" example:"500"`
	Quantity     int             `json:"quantity" doc:"Units bought" example:"2"`
	FaceValue    float64         `json:"faceValue" doc:"denomination × quantity, in units of the currency" example:"1000"`
	Codes        []OrderCodeBody `json:"codes" doc:"The codes delivered; empty until SUCCESS, and for physical goods"`
	CreatedAt    time.Time       `json:"createdAt" doc:"When the order was placed"`
}

// OrderTransitionBody is one recorded change of an order's status.
type OrderTransitionBody struct {
	From   *string   `json:"from" doc:"The status before, or null for the order's creation" example:"PROCESSING"`
	To     string    `json:"to" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"The status after" example:"SUCCESS"`
	Reason string    `json:"reason" doc:"Why it moved" example:"issued by the voucher provider"`
	At     time.Time `json:"at" doc:"When it moved"`
}

// OrderAddressBody is the delivery address of a physical good.
type OrderAddressBody struct {
	// _ makes the schema nullable: the field it fills is null when there is none.
	_        struct{} `nullable:"true"`
	Name     string   `json:"name" doc:"Recipient"`
	Line1    string   `json:"line1" doc:"First address line"`
	Line2    string   `json:"line2" doc:"Second address line"`
	Landmark string   `json:"landmark" doc:"Landmark"`
	City     string   `json:"city" doc:"City"`
	State    string   `json:"state" doc:"State"`
	PinCode  string   `json:"pinCode" doc:"PIN code"`
	Phone    string   `json:"phone" doc:"Phone number for the delivery"`
}

// AdminOrderBody is an order as the operator sees it: no codes, but its bookkeeping and history.
type AdminOrderBody struct {
	OrderID             uuid.UUID             `json:"orderId" doc:"Order id"`
	GameID              uuid.UUID             `json:"gameId" doc:"The game"`
	Environment         string                `json:"environment" enum:"live,test" doc:"The game's environment" example:"test"`
	Status              string                `json:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"Where the order stands" example:"SUCCESS"`
	PlayerID            uuid.UUID             `json:"playerId" doc:"The buyer"`
	UserRef             string                `json:"userRef" doc:"How the studio knows the buyer (its uuid, else the player id), as in the coin events of the debit and refund"`
	RewardID            uuid.UUID             `json:"rewardId" doc:"The reward bought"`
	Type                string                `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward" example:"GIFT_CARD"`
	CoinID              uuid.UUID             `json:"coinId" doc:"The coin that paid"`
	CoinsSpent          int64                 `json:"coinsSpent" doc:"Coins debited" example:"9500"`
	Denomination        float64               `json:"denomination" doc:"Face value of one unit, in units of the currency" example:"500"`
	Quantity            int                   `json:"quantity" doc:"Units bought" example:"2"`
	FaceValue           float64               `json:"faceValue" doc:"denomination × quantity, in units of the currency" example:"1000"`
	CodeCount           int                   `json:"codeCount" doc:"Codes delivered (they stay sealed here)" example:"2"`
	ProviderProduct     *string               `json:"providerProduct" doc:"The voucher provider's product that fulfils the order, or null (coupons and goods)"`
	DebitTransactionID  *uuid.UUID            `json:"debitTransactionId" nullable:"true" doc:"The journal entry of the coin debit, or null (none yet, or a partner order)"`
	RefundTransactionID *uuid.UUID            `json:"refundTransactionId" nullable:"true" doc:"The journal entry of the refund, or null"`
	Address             *OrderAddressBody     `json:"address" doc:"Where a PHYSICAL good goes, or null"`
	FailureReason       *string               `json:"failureReason" doc:"Why the order failed, or null"`
	DeadlineAt          time.Time             `json:"deadlineAt" doc:"When an unfinished provider order becomes late: past it, an order the provider never received is failed and refunded; one it holds is refunded only if it refuses it, and waits for an operator when it has no final answer a day later"`
	CreatedAt           time.Time             `json:"createdAt" doc:"When the order was placed"`
	UpdatedAt           time.Time             `json:"updatedAt" doc:"When it last changed"`
	Transitions         []OrderTransitionBody `json:"transitions" doc:"Every change of status, oldest first"`
}

// ---- Encoding: core values into transport values ----

func toOrderCodeBody(c orders.Code) OrderCodeBody {
	return OrderCodeBody{Code: c.Code, Pin: httpapi.Optional(c.Pin), ProviderVoucherID: httpapi.Optional(c.ProviderVoucherID),
		Value: c.Value.Units(), Expiry: c.Expiry}
}

func toPlayerOrderBody(v orders.View) PlayerOrderBody {
	return PlayerOrderBody{
		OrderID: v.ID, Status: string(v.Status), RewardID: v.RewardID, Type: string(v.RewardType), CoinID: v.CoinID,
		CoinsSpent: v.CoinsSpent, Balance: v.Balance, Denomination: v.Denomination.Units(), Quantity: v.Quantity,
		FaceValue: v.FaceValue.Units(), Codes: httpapi.Map(v.Codes, toOrderCodeBody), CreatedAt: v.CreatedAt,
	}
}

func toOrderTransitionBody(t orders.Transition) OrderTransitionBody {
	b := OrderTransitionBody{To: string(t.To), Reason: t.Reason, At: t.At}
	if t.From != nil {
		from := string(*t.From)
		b.From = &from
	}
	return b
}

func toOrderAddressBody(a *players.Address) *OrderAddressBody {
	if a == nil {
		return nil
	}
	return &OrderAddressBody{Name: a.Name, Line1: a.Line1, Line2: a.Line2, Landmark: a.Landmark, City: a.City,
		State: a.State, PinCode: a.PinCode, Phone: a.Phone}
}

func toAdminOrderBody(o orders.Order, history []orders.Transition) AdminOrderBody {
	return AdminOrderBody{
		OrderID: o.ID, GameID: o.GameID, Environment: string(o.Environment), Status: string(o.Status),
		PlayerID: o.PlayerID, UserRef: o.UserRef, RewardID: o.RewardID, Type: string(o.RewardType), CoinID: o.CoinID,
		CoinsSpent: o.CoinsSpent, Denomination: o.Denomination.Units(), Quantity: o.Quantity, FaceValue: o.FaceValue.Units(),
		CodeCount: len(o.Codes), ProviderProduct: httpapi.Optional(o.ProviderProduct),
		DebitTransactionID: o.DebitTxID, RefundTransactionID: o.RefundTxID, Address: toOrderAddressBody(o.Address),
		FailureReason: httpapi.Optional(o.FailureReason), DeadlineAt: o.DeadlineAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		Transitions: httpapi.Map(history, toOrderTransitionBody),
	}
}
