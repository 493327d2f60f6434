/* The scoreboard's Three Card Poker view (screen "three-card-poker": Three Card Poker 6 Card
 * Bonus). docs/scoreboard.md "Three Card Poker"; what the banked views share is
 * web/views/banked.js.
 *
 * Live (`state`): the player-dealer's stack as the table shows it, its face-up card and two
 * cards face down; each seat's stack face down (three cards drawn without a name) with its
 * wagers and its decision, play or fold (a folded hand is taken away: no card); whose decision
 * is due. Between rounds: the last round as `round/result` shows it, the player-dealer's three
 * cards, its rank and whether it qualified, each played hand's cards, rank and result, a
 * folded hand without a card, the 6 Card Bonus's hand, and what each wager won or lost.
 * It draws only the cards `state` and `round/result` carry (docs/mqtt.md, "The card-exposure
 * rule"). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;
  const B = global.TablectlBanked;

  const SPOTS = { ante: "Ante", play: "Play", "pair-plus": "Pair Plus", "six-card-bonus": "6 Card Bonus" };
  const SHOWDOWN = { win: "wins", lose: "loses", tie: "ties" };

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const hands = new Map((st.hands || []).map((h) => [h.seat, h]));
    const wagers = B.bySeat(st.wagers || []);
    return B.seatOrder(hands, wagers).map((seat) => {
      const h = hands.get(seat) || {};
      const folded = h.decision === "fold";
      const line = h.decision ? [B.tag(h.decision === "play" ? "plays" : "folded", `d-${h.decision}`)] : [];
      const box = B.seat(seat, B.bets(wagers.get(seat) || [], SPOTS),
        B.hand(seat, "player", h.dealt && !folded ? [null, null, null] : [], line));
      if (st.next_decision === seat) box.classList.add("turn");
      return box;
    });
  }

  function live(st) {
    const pd = st.player_dealer;
    $("tcp-dealer-cards").replaceChildren(...(pd && pd.face_up ? [pd.face_up, null, null] : []).map(card));
    $("tcp-dealer-rank").textContent = "";
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function resultSeats(res) {
    return B.settled(res).map(({ seat, hand, rows: mine, net }) => {
      const h = hand || {};
      const line = [];
      if (h.decision === "fold") line.push(B.tag("folded", "d-fold"));
      else if (h.rank) {
        line.push(el("b", { class: "tcp-rank" }, B.rankName(h.rank)));
        const verdict = h.showdown === null ? "push" : h.showdown;
        line.push(B.verdict(h.showdown === null ? "no-qualify" : h.showdown,
          verdict === "win" ? "win" : verdict === "lose" ? "lose" : "push",
          h.showdown === null ? "dealer does not qualify" : SHOWDOWN[h.showdown] || h.showdown));
      }
      const list = B.moneyLines(mine, (s) => SPOTS[s.spot] || s.spot);
      if (h.six_card_bonus) {
        list.prepend(el("li", { class: "tcp-six" }, `6 Card Bonus hand: ${B.rankName(h.six_card_bonus.rank)}`));
      }
      return B.seat(seat, [B.net(net)], B.hand(seat, "player", h.cards || [], line), list);
    });
  }

  function result(res) {
    const pd = res.outcome && res.outcome.player_dealer;
    $("tcp-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("tcp-dealer-rank").textContent = pd
      ? `${B.rankName(pd.rank)}, ${pd.qualified ? "qualifies" : "does not qualify"}` : "";
  }

  function note(st) {
    if (st.phase === "dealing" && st.next_stack !== null && st.next_stack !== undefined) {
      const pd = st.player_dealer;
      return pd && st.next_stack === pd.seat ? "Next stack: the player-dealer" : `Next stack: seat ${st.next_stack}`;
    }
    if (st.phase === "deciding" && st.next_decision) return `Seat ${st.next_decision} to play or fold`;
    return "";
  }

  global.TablectlViews["three-card-poker"] = B.view({
    prefix: "tcp",
    dealer: `
    <div class="bk-row"><div class="cards" id="tcp-dealer-cards"></div><b class="bk-figure" id="tcp-dealer-rank"></b></div>`,
    phases: { betting: "Betting", dealing: "Dealing", deciding: "Deciding" },
    idle: (st) => !(st.hands || []).some((h) => h.dealt),
    live, liveSeats, result, resultSeats, note,
  });
})(window);
