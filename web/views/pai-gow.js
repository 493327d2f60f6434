/* The scoreboard's Pai Gow view (screen "pai-gow": Fortune Pai Gow Poker). docs/scoreboard.md
 * "Pai Gow"; what the banked views share is web/views/banked.js.
 *
 * Live (`state`): the dice and the seat they give the first hand and the Action button; the
 * seven-card piles face down (drawn without a name) of the seats in play and the
 * player-dealer's, as they are dealt, each seat's wagers, its Envy button, and whether it has
 * set its hand. No card shows before the showdown, and a pile dealt to a seat without a game
 * wager is discarded unseen: the view draws none. Between rounds: the last round's showdown as
 * `round/result` shows it, each hand in play and the player-dealer's set in its two-card (low)
 * and five-card (high) hands with their ranks, who set it (the player or the house way), the
 * game wager's result, the Fortune hand and the Envy, and what each wager won or lost.
 * It draws only the cards `state` and `round/result` carry (docs/mqtt.md, "The card-exposure
 * rule"). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;
  const B = global.TablectlBanked;

  const SPOTS = { base: "Game", fortune: "Fortune", envy: "Envy" };
  const RESULTS = { win: "wins", lose: "loses", push: "pushes" };
  const PILE = [null, null, null, null, null, null, null];

  /** A hand of seven: a pile face down, or set as the showdown shows it: the low hand's cards
   * then the high hand's, side by side, their ranks under them ("Low: High card", "High: Pair"),
   * then `line`. */
  function handBox(seat, who, h, line) {
    const box = el("div", { class: "pg-hand", "data-seat": seat, "data-hand": who });
    if (h && !h.high) {
      const pile = el("div", { class: "cards pg-pile" });
      pile.replaceChildren(...h.cards.map(card));
      box.append(pile);
    } else if (h) {
      const set = el("div", { class: "pg-set" });
      const ranks = el("div", { class: "pg-ranks" });
      for (const [part, label] of [["low", "Low"], ["high", "High"]]) {
        const cards = el("div", { class: `cards pg-${part}`, "data-part": part });
        cards.replaceChildren(...h[part].cards.map(card));
        set.append(cards);
        ranks.append(el("span", { class: "pg-rank", "data-part": part }, `${label}: ${B.rankName(h[part].rank)}`));
      }
      box.append(set, ranks);
    }
    if (line) {
      const text = el("div", { class: "line bk-line" });
      text.append(...line);
      box.append(text);
    }
    return box;
  }

  function drawDice(dice, total, first, button) {
    const box = $("pg-dice");
    if (!dice) { box.replaceChildren(); return; }
    const faces = dice.map((d) => el("span", { class: "pg-die", "data-die": d }, d));
    box.replaceChildren(...faces, el("span", { class: "pg-dice-text" },
      `= ${total}: first hand seat ${first}, Action button seat ${button}`));
  }

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const wagers = B.bySeat(st.wagers || []);
    const dealt = new Set(st.hands_dealt || []);
    const inPlay = st.in_play && st.in_play.length ? st.in_play : [...wagers.keys()];
    const order = [...(st.hands_dealt || []).filter((s) => inPlay.includes(s)),
      ...inPlay.filter((s) => !dealt.has(s))];
    const envy = new Set((st.envy_buttons || []).map((b) => b.seat));
    const waiting = new Set(st.awaiting_setting || []);
    return order.map((seat) => {
      const head = B.bets(wagers.get(seat) || [], SPOTS);
      if (envy.has(seat)) head.push(el("span", { class: "pg-envy" }, "Envy button"));
      const line = [];
      if (st.phase === "setting") {
        line.push(B.tag(waiting.has(seat) ? "setting" : "set", waiting.has(seat) ? "to-set" : "is-set"));
      }
      const box = B.seat(seat, head, handBox(seat, "player", dealt.has(seat) ? { cards: PILE } : null, line));
      if (waiting.has(seat)) box.classList.add("turn");
      return box;
    });
  }

  function live(st) {
    const pd = st.player_dealer;
    drawDice(st.dice, st.dice ? st.dice.reduce((a, b) => a + b, 0) : 0, st.first_seat, st.button_seat);
    const dealerDealt = pd && (st.hands_dealt || []).includes(pd.seat);
    $("pg-dealer-hand").replaceChildren(handBox(pd ? pd.seat : 0, "player-dealer", dealerDealt ? { cards: PILE } : null));
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function resultSeats(res) {
    return B.settled(res).map(({ seat, hand, rows: mine, net }) => {
      const h = hand;
      const list = B.moneyLines(mine, (s) =>
        (s.spot === "envy" && s.for_seat ? `Envy for seat ${s.for_seat}` : SPOTS[s.spot] || s.spot));
      const line = [];
      if (h) {
        if (h.result) {
          line.push(B.verdict(h.result, h.result === "win" ? "win" : h.result === "lose" ? "lose" : "push",
            RESULTS[h.result] || h.result));
        }
        line.push(B.tag(h.set_by === "house-way" ? "house way" : "set by the player"));
        if (h.fortune) line.push(B.tag(`Fortune: ${B.rankName(h.fortune)}`, "fortune"));
        if (h.envy) line.push(B.tag("pays the Envy", "envy"));
      }
      return B.seat(seat, [B.net(net), list], handBox(seat, "player", h, line));
    });
  }

  function result(res) {
    const o = res.outcome;
    const pd = o && o.player_dealer;
    if (o) drawDice(o.dice, o.total, o.first_seat, o.button_seat);
    else drawDice(null);
    const dealer = handBox(pd ? pd.seat : 0, "player-dealer", pd);
    if (pd && pd.house_way_row) {
      dealer.append(el("div", { class: "pg-way" }, `house way: ${B.rankName(pd.house_way_row)}`));
    }
    $("pg-dealer-hand").replaceChildren(dealer);
  }

  function note(st) {
    if (st.phase === "closed") return "Shake the dice";
    if (st.phase === "dealing") return `${(st.hands_dealt || []).length} of 7 hands dealt`;
    if (st.phase === "setting" && (st.awaiting_setting || []).length) {
      return `Seat ${st.awaiting_setting.join(", ")} to set`;
    }
    return "";
  }

  global.TablectlViews["pai-gow"] = B.view({
    prefix: "pg",
    status: `
    <div class="pg-dice" id="pg-dice"></div>`,
    dealer: `
    <div class="pg-hands" id="pg-dealer-hand"></div>`,
    phases: { betting: "Betting", closed: "Closed: the dice", dealing: "Dealing", setting: "Setting the hands" },
    idle: (st) => !st.dice,
    live, liveSeats, result, resultSeats, note,
  });
})(window);
