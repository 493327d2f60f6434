/* The scoreboard's Ultimate Texas Hold'em view (screen "ultimate"). docs/scoreboard.md
 * "Ultimate Texas Hold'em"; what the banked views share is web/views/banked.js.
 *
 * Live (`state`): the board as the table turns it over (the flop, then the turn and the
 * river; the cards not yet turned face down), the player-dealer's two cards face down, each
 * seat's two cards face down with its wagers and its Play (a folded hand is taken away: no
 * card), whose decision is due. Cards face down are drawn without a name. Between rounds: the
 * last round as `round/result` shows it, the board, the player-dealer's cards, rank and
 * whether it qualified (no card when every player folded), each hand that did not fold with its
 * cards, rank and result, a folded hand without a card, and what each wager won or lost.
 * It draws only the cards `state` and `round/result` carry (docs/mqtt.md, "The card-exposure
 * rule"). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;
  const B = global.TablectlBanked;

  const STREETS = { preflop: "bet 3x or 4x, or check", flop: "bet 2x or check", river: "bet 1x or fold" };
  const SPOTS = { ante: "Ante", blind: "Blind", play: "Play", trips: "Trips", "bad-beat": "Bad Beat" };
  const RESULTS = { win: "wins", lose: "loses", push: "pushes", fold: "folded" };
  const DEALT = new Set(["preflop", "flop", "river"]);

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const wagers = B.bySeat(st.wagers || []);
    const plays = new Map((st.plays || []).map((p) => [p.seat, p]));
    const folded = new Set(st.folded || []);
    const hands = st.hands || [];
    return B.seatOrder(new Map(hands.map((s) => [s, s])), wagers).map((seat) => {
      const line = [];
      const play = plays.get(seat);
      if (play) line.push(B.tag(`Play ${play.multiple}x ${play.amount}`, "play"));
      if (folded.has(seat)) line.push(B.tag("folded", "fold"));
      const dealt = hands.includes(seat) && !folded.has(seat);
      const box = B.seat(seat, B.bets(wagers.get(seat) || [], SPOTS),
        B.hand(seat, "player", dealt ? [null, null] : [], line));
      if (st.to_act === seat) box.classList.add("turn");
      return box;
    });
  }

  function live(st) {
    // The player-dealer's stack comes after the seats', the board's last (state.next_stack).
    const next = st.next_stack && st.next_stack.to;
    const dealerDealt = DEALT.has(st.phase) || next === "board";
    const boardDealt = DEALT.has(st.phase);
    $("uth-dealer-cards").replaceChildren(...(dealerDealt ? [null, null] : []).map(card));
    $("uth-dealer-rank").textContent = "";
    const board = st.board || [];
    const down = boardDealt ? Array(Math.max(0, 5 - board.length)).fill(null) : [];
    $("uth-board").replaceChildren(...[...board, ...down].map(card));
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function resultSeats(res) {
    return B.settled(res).map(({ seat, hand, rows: mine, net }) => {
      const h = hand || {};
      const line = [];
      if (h.rank) line.push(el("b", { class: "uth-rank" }, B.rankName(h.rank)));
      if (h.result) {
        line.push(B.verdict(h.result, h.result === "win" ? "win" : h.result === "push" ? "push" : "lose",
          RESULTS[h.result] || h.result));
      }
      return B.seat(seat, [B.net(net)], B.hand(seat, "player", h.folded ? [] : h.cards || [], line),
        B.moneyLines(mine, (s) => SPOTS[s.spot] || s.spot));
    });
  }

  function result(res) {
    const o = res.outcome;
    const pd = o && o.player_dealer;
    $("uth-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("uth-dealer-rank").textContent = pd
      ? `${B.rankName(pd.rank)}, ${pd.qualifies ? "qualifies" : "does not qualify"}`
      : o ? "every player folded" : "";
    $("uth-board").replaceChildren(...(o ? o.board || [] : []).map(card));
  }

  function note(st) {
    if (st.phase === "dealing" && st.next_stack) {
      const n = st.next_stack;
      return n.to === "board" ? "Next: the board" : n.to === "player-dealer"
        ? "Next: the player-dealer's cards" : `Next: seat ${n.seat}'s cards`;
    }
    if (STREETS[st.phase] && st.to_act) return `Seat ${st.to_act} to ${STREETS[st.phase]}`;
    return "";
  }

  global.TablectlViews.ultimate = B.view({
    prefix: "uth",
    dealer: `
    <div class="uth-top">
      <div class="cards" id="uth-dealer-cards"></div>
      <div class="uth-board-box"><h3>Board</h3><div class="cards uth-board" id="uth-board"></div></div>
    </div>
    <div class="uth-rank" id="uth-dealer-rank"></div>`,
    phases: { betting: "Betting", dealing: "Dealing", preflop: "Pre-flop", flop: "Flop", river: "River" },
    idle: (st) => !(st.hands || []).length,
    live, liveSeats, result, resultSeats, note,
  });
})(window);
