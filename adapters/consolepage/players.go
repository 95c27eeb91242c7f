package consolepage

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/players"
)

// playerTxPageSize is how many transactions a page of a player's shows (core/console's
// PlayerPage on the first).
const playerTxPageSize = console.PlayerPage

// playersPage is the lookup form and, once found, the player.
type playersPage struct {
	EnvName string
	Query   string
	// Missing: the lookup found no one (the page says so, with 404).
	Missing bool
	Player  *playerView
	SelfURL string
}

// playerView is one player as support reads it.
type playerView struct {
	ID                                   uuid.UUID
	Ref, UUID, Phone, Name, Email        string
	ContactPhone                         string
	Blocked                              bool
	Joined                               string
	Funds                                []fundRow
	Transactions                         []txRow
	TxTotal                              int64
	TxFrom, TxTo                         int
	TxNewer, TxOlder                     string
	Orders                               []orderRow
	MoreOrders                           bool
	URL, BlockURL, UnblockURL, OrdersURL string
}

type fundRow struct {
	Coin                   string
	Balance, Earned, Spent int64
}

type txRow struct {
	When, Coin, Type         string
	Amount, BalanceAfter     int64
	Reason, Reference, About string
}

func playersURL(g *gameRef) string { return envURL(g) + "/players" }

// toPlayerView is what the player page shows of v; txPage numbers the page of transactions
// (1: v's own, the newest).
func toPlayerView(g *gameRef, v console.PlayerView, tx console.PlayerTransactions, txPage int) *playerView {
	pl := v.Player
	pv := &playerView{ID: pl.ID, Ref: pl.StudioRef(), Name: pl.Name, Email: pl.Email, ContactPhone: pl.ContactPhone,
		Blocked: pl.IsBlocked, Joined: when(pl.CreatedAt), TxTotal: tx.Total, MoreOrders: v.OrdersNext != ""}
	if pl.UUID != nil {
		pv.UUID = *pl.UUID
	}
	if pl.Phone != nil {
		pv.Phone = *pl.Phone
	}
	pv.URL = playersURL(g) + "/" + pl.ID.String()
	pv.BlockURL, pv.UnblockURL = pv.URL+"/block", pv.URL+"/unblock"
	pv.OrdersURL = ordersURL(g) + "?player=" + url.QueryEscape(pl.ID.String())
	names := map[uuid.UUID]string{}
	for _, f := range v.Funds {
		names[f.Coin.ID] = f.Coin.Name
		pv.Funds = append(pv.Funds, fundRow{Coin: f.Coin.Name, Balance: f.Balance, Earned: f.LifetimeEarned, Spent: f.LifetimeSpent})
	}
	for _, t := range tx.Transactions {
		pv.Transactions = append(pv.Transactions, toTxRow(t, names))
	}
	skip := (txPage - 1) * playerTxPageSize
	if len(tx.Transactions) > 0 {
		pv.TxFrom, pv.TxTo = skip+1, skip+len(tx.Transactions)
	}
	if txPage > 1 {
		pv.TxNewer = pv.URL + txQuery(txPage-1) + "#player-transactions"
	}
	if int64(skip+len(tx.Transactions)) < tx.Total {
		pv.TxOlder = pv.URL + txQuery(txPage+1) + "#player-transactions"
	}
	for _, o := range v.Orders {
		pv.Orders = append(pv.Orders, toOrderRow(g, o))
	}
	return pv
}

func txQuery(page int) string {
	if page <= 1 {
		return ""
	}
	return "?tx=" + strconv.Itoa(page)
}

func toTxRow(t coins.Transaction, names map[uuid.UUID]string) txRow {
	name := names[t.CoinID]
	if name == "" {
		name = t.CoinID.String()
	}
	amount := t.Amount
	if t.Type == coins.Debit {
		amount = -amount
	}
	return txRow{When: when(t.CreatedAt), Coin: name, Type: string(t.Type), Amount: amount, BalanceAfter: t.BalanceAfter,
		Reason: t.Reason, Reference: t.ReferenceID, About: t.Description}
}

// playersShow is GET …/players?q=: the lookup form, and the player q names.
func (h *Handler) playersShow(w http.ResponseWriter, r *http.Request) {
	h.showPlayer(w, r, r.URL.Query().Get("q"))
}

// playerShow is GET …/players/{playerID}?tx=: one player, the page of its transactions tx.
func (h *Handler) playerShow(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.idParam(w, r, "playerID"); ok {
		h.showPlayer(w, r, id.String())
	}
}

func (h *Handler) showPlayer(w http.ResponseWriter, r *http.Request, q string) {
	page, err := h.playersPage(r, q)
	switch {
	case errors.Is(err, players.ErrPlayerNotFound):
		page.Missing = true
		h.renderProblem(w, r, http.StatusNotFound, "players_show.html", "Players", page,
			"No player of this game in "+page.EnvName+" has the uuid, id or phone "+strconv.Quote(q)+". A phone is written in E.164, such as +919876543210.")
	case err != nil:
		h.failOrMissing(w, r, err)
	default:
		h.render(w, r, http.StatusOK, "players_show.html", "Players", page)
	}
}

// playersPage looks q up (nothing when q is empty).
func (h *Handler) playersPage(r *http.Request, q string) (playersPage, error) {
	g, p := gameOf(r), principal(r)
	page := playersPage{EnvName: envName(g), Query: q, SelfURL: playersURL(g)}
	if q == "" {
		return page, nil
	}
	v, err := h.console.Player(r.Context(), p, g.ID, g.Env, q)
	if err != nil {
		return page, err
	}
	txPage, _ := strconv.Atoi(r.URL.Query().Get("tx"))
	txPage = max(1, min(txPage, 500))
	tx := console.PlayerTransactions{Transactions: v.Transactions, Total: v.TransactionsTotal}
	if txPage > 1 {
		if tx, err = h.console.PlayerTransactions(r.Context(), p, g.ID, g.Env, v.Player.ID, playerTxPageSize, (txPage-1)*playerTxPageSize); err != nil {
			return page, err
		}
	}
	page.Player = toPlayerView(g, v, tx, txPage)
	return page, nil
}

// playerBlock is POST …/players/{playerID}/block.
func (h *Handler) playerBlock(w http.ResponseWriter, r *http.Request) { h.setBlocked(w, r, true) }

// playerUnblock is POST …/players/{playerID}/unblock.
func (h *Handler) playerUnblock(w http.ResponseWriter, r *http.Request) { h.setBlocked(w, r, false) }

// setBlocked blocks or unblocks the player once the box confirming it is ticked, and leads back
// to the player's page.
func (h *Handler) setBlocked(w http.ResponseWriter, r *http.Request, blocked bool) {
	g, p := gameOf(r), principal(r)
	id, ok := h.idParam(w, r, "playerID")
	if !ok {
		return
	}
	if !h.readForm(w, r, "Players") {
		return
	}
	refused := func(status int, err error, words string) {
		page, perr := h.playersPage(r, id.String())
		if errors.Is(perr, players.ErrPlayerNotFound) {
			page.Missing = true
		} else if perr != nil {
			h.failOrMissing(w, r, perr)
			return
		}
		if err != nil {
			h.refused(w, r, err, "players_show.html", "Players", page)
			return
		}
		h.renderProblem(w, r, status, "players_show.html", "Players", page, words)
	}
	if field(r, "confirm") != "yes" {
		verb := "unblocking"
		if blocked {
			verb = "blocking"
		}
		refused(http.StatusBadRequest, nil, "Tick the box to confirm "+verb+" the player: nothing was changed.")
		return
	}
	change := h.console.UnblockPlayer
	if blocked {
		change = h.console.BlockPlayer
	}
	pl, err := change(r.Context(), p, g.ID, g.Env, id)
	if err != nil {
		refused(0, err, "")
		return
	}
	done := "Player " + pl.StudioRef() + " unblocked: they can log in and open the store again."
	if blocked {
		done = "Player " + pl.StudioRef() + " blocked: their tokens and store session no longer work, and they cannot log in."
	}
	h.redirect(w, r, playersURL(g)+"/"+id.String(), done)
}
