/* The scoreboard's blackjack view (screen "blackjack": Pure 21.5 Blackjack, Pure Spanish 21.5).
 * docs/scoreboard.md "Blackjack"; what the banked views share is web/views/banked.js.
 *
 * Live (`state`): the player-dealer's up card and its hole card face down (`hole_card_down`:
 * drawn as card(null), which names nothing) until the table turns it over, then every card it
 * draws and its total; each seat's hands as dealt, in the order they play, with their totals,
 * splits, doubles and how each ended; whose turn it is; insurance while it is offered.
 * Between rounds (`betting`, nothing dealt yet): the last round as `round/result` shows it,
 * with each hand's result and what it won or lost, and the side bets' results.
 * It draws only the cards `state` and `round/result` carry (docs/mqtt.md, "The card-exposure
 * rule"). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;
  const B = global.TablectlBanked;

  const ENDS = { stand: "stand", bust: "bust", surrender: "surrendered", rescue: "rescued",
    pure: "Pure 21.5", doubled: "doubled", "split-aces": "split aces", dealt: "" };
  // How a hand ended that its total or its doubles already say.
  const SAID = { pure: true, bust: true, doubled: true };
  const RESULTS = { win: "win", lose: "lose", push: "push", pure: "Pure 21.5", surrender: "surrender",
    rescue: "rescue" };
  // A seat's wagers as its head shows them: the base wager's amount alone, then the others.
  const SPOTS = { base: "", "red-flex": "Red Flex", buster: "Buster", "match-dealer": "Match the Dealer",
    insurance: "Insurance" };

  /** A hand's total as the table calls it: "Pure 21.5", "888", "bust 25", "soft 18", "17". */
  function totalText(h) {
    if (!h || !h.rank) return "";
    if (h.rank === "pure-21.5") return "Pure 21.5";
    if (h.rank === "888") return "888";
    if (h.rank === "bust") return `bust ${h.total}`;
    return h.soft ? `soft ${h.total}` : String(h.total);
  }

  /** A hand: its cards, then its total and `line` (its split, doubles, end or result). */
  const handBox = (h, line) =>
    B.hand(h.seat, h.hand, h.cards || [], [el("b", { class: "bj-total" }, totalText(h)), ...line]);

  /** What a hand's line says of how it was played: split, each double. */
  function played(h) {
    const line = [];
    if (h.split) line.push(B.tag("split"));
    if (h.doubles && h.doubles.length) line.push(B.tag(`doubled ${h.doubles.join(" + ")}`, "double"));
    return line;
  }

  /** A seat: its head, its hands side by side where there is room, then `more`. */
  function seatBox(seat, head, hands, more) {
    const list = el("div", { class: "bj-hands" });
    list.append(...hands);
    const box = B.seat(seat, head, list, more);
    box.dataset.hands = hands.length;
    return box;
  }

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const hands = B.bySeat(st.hands || []);
    const wagers = B.bySeat(st.wagers || []);
    const turn = st.turn || {};
    return B.seatOrder(hands, wagers).map((seat) =>
      seatBox(seat, B.bets(wagers.get(seat) || [], SPOTS), (hands.get(seat) || []).map((h) => {
        const line = played(h);
        if (h.end && ENDS[h.end] && !SAID[h.end]) line.push(B.tag(ENDS[h.end], `end-${h.end}`));
        const hb = handBox(h, line);
        if (turn.seat === h.seat && turn.hand === h.hand) hb.classList.add("turn");
        return hb;
      })));
  }

  function live(st) {
    const pd = st.player_dealer;
    const shownCards = pd ? [...(pd.cards || []), ...(pd.hole_card_down ? [null] : [])] : [];
    $("bj-dealer-cards").replaceChildren(...shownCards.map(card));
    $("bj-dealer-total").textContent = pd ? totalText(pd) : "";
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function sideText(spot, seat, o) {
    if (spot === "red-flex" && o.red_flex) return o.red_flex.category ? `${o.red_flex.count} red` : "";
    if (spot === "buster" && o.buster) return o.buster.category ? `${o.buster.cards}-card bust` : "";
    if (spot === "match-dealer" && o.match_dealer) {
      const m = o.match_dealer.find((x) => x.seat === seat);
      return m && m.category ? m.category.replace(/-/g, " ") : "";
    }
    return "";
  }

  function resultSeats(res) {
    const o = res.outcome;
    const rows = B.bySeat(res.settlements || []);
    const hands = B.bySeat(o.hands || []);
    return B.seatOrder(hands, rows).map((seat) => {
      const mine = rows.get(seat) || [];
      const net = mine.reduce((sum, s) => sum + B.cents(s.net), 0);
      const drawn = (hands.get(seat) || []).map((h) => {
        const base = mine.filter((s) => s.spot === "base" && s.hand === h.hand);
        const line = played(h);
        if (base.length) {
          const c = base.reduce((sum, s) => sum + B.cents(s.net), 0);
          const verdict = base[0].result || base[0].status;
          line.push(B.verdict(verdict, `bj-result r-${verdict}`,
            `${RESULTS[verdict] || verdict} ${c ? B.signed(c) : ""}`.trim()));
        }
        return handBox(h, line);
      });
      const side = mine.filter((s) => s.spot !== "base");
      const list = side.length ? B.moneyLines(side, (s) => {
        const what = sideText(s.spot, seat, o);
        return `${SPOTS[s.spot] || s.spot}${what ? ` ${what}` : ""}`;
      }) : null;
      return seatBox(seat, [B.net(net)], drawn, list);
    });
  }

  function result(res) {
    const pd = res.outcome && res.outcome.player_dealer;
    $("bj-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("bj-dealer-total").textContent = pd ? totalText(pd) : "";
  }

  function note(st) {
    if (st.phase === "insurance" && st.insurance) {
      const even = st.insurance.even_money.length ? `; even money: seat ${st.insurance.even_money.join(", ")}` : "";
      return `Insurance open: seat ${st.insurance.pending.join(", ")}${even}`;
    }
    if (st.phase === "playing" && st.turn) return `Seat ${st.turn.seat}, hand ${st.turn.hand} to play`;
    if (st.phase === "dealing" && st.next_card) {
      const n = st.next_card;
      return n === "player-dealer" ? "Next card: the player-dealer" : `Next card: seat ${n.seat}`;
    }
    return "";
  }

  global.TablectlViews.blackjack = B.view({
    prefix: "bj",
    dealer: `
    <div class="bk-row"><div class="cards" id="bj-dealer-cards"></div><b class="bk-figure bj-total" id="bj-dealer-total"></b></div>`,
    phases: { betting: "Betting", dealing: "Dealing", insurance: "Insurance", playing: "Playing",
      "player-dealer": "Player-dealer draws" },
    idle: (st) => !(st.hands || []).length,
    live, liveSeats, result, resultSeats, note,
  });
})(window);
