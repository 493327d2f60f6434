/* The scoreboard's Pai Gow view (screen "pai-gow": Fortune Pai Gow Poker). docs/scoreboard.md
 * "Pai Gow".
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
  const table = global.TablectlViews.table;

  const PHASES = { betting: "Betting", closed: "Closed: the dice", dealing: "Dealing", setting: "Setting the hands" };
  const SPOTS = { base: "Game", fortune: "Fortune", envy: "Envy" };
  const RESULTS = { win: "wins", lose: "loses", push: "pushes" };
  const PILE = [null, null, null, null, null, null, null];

  const MARKUP = `
  <section class="panel pg-status" id="pg-status">
    <div class="pg-state"><span class="pg-phase" id="pg-phase"></span><span class="pg-note" id="pg-note"></span><span class="pg-action" id="pg-action"></span></div>
    <div class="pg-dice" id="pg-dice"></div>
    <div class="pg-hits-row" id="pg-hits-row"><h3 id="pg-hits-title">Side-bet hits</h3><ol class="pg-hits" id="pg-hits"></ol></div>
  </section>
  <section class="panel pg-dealer" id="pg-dealer">
    <h2>Player-dealer <span class="pg-who" id="pg-bank"></span></h2>
    <div class="pg-hands" id="pg-dealer-hand"></div>
  </section>
  <section class="panel pg-table" id="pg-table">
    <h2 id="pg-title"></h2>
    <div class="pg-seats" id="pg-seats"></div>
  </section>`;

  const cents = (amount) => Math.round(Number(amount) * 100);
  /** Money won or lost: "+10.00", "\u22125.00", "0.00". */
  function signed(c) {
    const text = (Math.abs(c) / 100).toFixed(2);
    return c > 0 ? `+${text}` : c < 0 ? `\u2212${text}` : text;
  }
  const outcomeClass = (c) => (c > 0 ? "win" : c < 0 ? "lose" : "push");
  /** A rank or category as the layout reads it: "three-of-a-kind" "Three of a kind". */
  function rankName(rank) {
    if (!rank) return "";
    const text = rank.replace(/^five-aces$/, "5 aces").replace(/-/g, " ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function bySeat(list) {
    const seats = new Map();
    for (const item of list) {
      if (!seats.has(item.seat)) seats.set(item.seat, []);
      seats.get(item.seat).push(item);
    }
    return seats;
  }

  /** Which round to draw: the one being dealt, else (betting, no dice yet) the last result. */
  function shown(sb) {
    const st = sb.state;
    const res = sb.result;
    const idle = !st || (st.phase === "betting" && !st.dice);
    if (idle && res && (!st || res.round === st.round - 1)) return { res };
    return { st };
  }

  /** A hand of seven: a pile face down, or set as the showdown shows it (low, then high). */
  function handBox(seat, who, h) {
    const box = el("div", { class: "pg-hand", "data-seat": seat, "data-hand": who });
    if (!h) return box;
    if (!h.high) {
      const pile = el("div", { class: "cards pg-pile" });
      pile.replaceChildren(...h.cards.map(card));
      box.append(pile);
      return box;
    }
    for (const [part, label] of [["low", "Low"], ["high", "High"]]) {
      const group = el("div", { class: `pg-part pg-${part}`, "data-part": part });
      const cards = el("div", { class: "cards" });
      cards.replaceChildren(...h[part].cards.map(card));
      group.append(cards, el("div", { class: "pg-rank" }, `${label}: ${rankName(h[part].rank)}`));
      box.append(group);
    }
    return box;
  }

  function seatBox(seat, head, hand, line, more) {
    const box = el("div", { class: "seat pg-seat", "data-seat": seat });
    const h3 = el("h3", {});
    h3.append(el("span", { class: "seat-no" }, `Seat ${seat}`), ...head);
    const text = el("div", { class: "line pg-line" });
    text.append(...line);
    hand.append(text);
    box.append(h3, hand, ...(more ? [more] : []));
    return box;
  }

  const tag = (text, cls) => el("span", { class: `tag ${cls || ""}`.trim() }, text);

  function drawDice(dice, total, first, button) {
    const box = $("pg-dice");
    if (!dice) { box.replaceChildren(); return; }
    const faces = dice.map((d) => el("span", { class: "pg-die", "data-die": d }, d));
    box.replaceChildren(...faces, el("span", { class: "pg-dice-text" },
      `= ${total}: first hand seat ${first}, Action button seat ${button}`));
  }

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const wagers = bySeat(st.wagers || []);
    const dealt = new Set(st.hands_dealt || []);
    const inPlay = st.in_play && st.in_play.length ? st.in_play : [...wagers.keys()];
    const order = [...(st.hands_dealt || []).filter((s) => inPlay.includes(s)),
      ...inPlay.filter((s) => !dealt.has(s))];
    const envy = new Set((st.envy_buttons || []).map((b) => b.seat));
    const waiting = new Set(st.awaiting_setting || []);
    return order.map((seat) => {
      const spots = new Map();
      for (const w of wagers.get(seat) || []) spots.set(w.spot, (spots.get(w.spot) || 0) + cents(w.amount));
      const head = [...spots].map(([spot, c]) =>
        el("span", { class: "pg-bet" }, `${SPOTS[spot] || spot} ${(c / 100).toFixed(2)}`));
      if (envy.has(seat)) head.push(el("span", { class: "pg-envy" }, "Envy button"));
      const line = [];
      if (st.phase === "setting") line.push(tag(waiting.has(seat) ? "setting" : "set", waiting.has(seat) ? "to-set" : "is-set"));
      const box = seatBox(seat, head, handBox(seat, "player", dealt.has(seat) ? { cards: PILE } : null), line);
      if (waiting.has(seat)) box.classList.add("turn");
      return box;
    });
  }

  function drawLive(st) {
    const pd = st.player_dealer;
    $("pg-bank").textContent = pd
      ? `seat ${pd.seat} \u00b7 bank ${pd.bank} \u00b7 hand ${pd.turn} of 2`
      : st.bank_offer_seat ? `bank offered to seat ${st.bank_offer_seat}` : "no bank posted";
    drawDice(st.dice, st.dice ? st.dice.reduce((a, b) => a + b, 0) : 0, st.first_seat, st.button_seat);
    const dealerDealt = pd && (st.hands_dealt || []).includes(pd.seat);
    $("pg-dealer-hand").replaceChildren(handBox(pd ? pd.seat : 0, "player-dealer", dealerDealt ? { cards: PILE } : null));
    $("pg-title").textContent = `Round ${st.round}`;
    const seats = liveSeats(st);
    $("pg-seats").replaceChildren(...seats);
    $("pg-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function resultSeats(res) {
    const o = res.outcome;
    const rows = bySeat(res.settlements || []);
    const hands = new Map((o.hands || []).map((h) => [h.seat, h]));
    const seats = [...hands.keys(), ...[...rows.keys()].filter((s) => !hands.has(s))];
    return seats.map((seat) => {
      const h = hands.get(seat);
      const mine = rows.get(seat) || [];
      const net = mine.reduce((sum, s) => sum + cents(s.net), 0);
      const head = [el("span", { class: `pg-net ${outcomeClass(net)}`, "data-net": signed(net) }, signed(net))];
      const list = el("ul", { class: "pg-spots" });
      for (const s of mine) {
        const c = cents(s.net);
        const label = s.spot === "envy" && s.for_seat ? `Envy for seat ${s.for_seat}` : SPOTS[s.spot] || s.spot;
        list.append(el("li", { class: outcomeClass(c), "data-spot": s.spot, "data-net": s.net }, `${label} ${signed(c)}`));
      }
      head.push(list);
      const line = [];
      if (h) {
        if (h.result) {
          line.push(el("span", { class: `pg-result ${h.result === "win" ? "win" : h.result === "lose" ? "lose" : "push"}`,
            "data-result": h.result }, RESULTS[h.result] || h.result));
        }
        line.push(tag(h.set_by === "house-way" ? "house way" : "set by the player"));
        if (h.fortune) line.push(tag(`Fortune: ${rankName(h.fortune)}`, "fortune"));
        if (h.envy) line.push(tag("pays the Envy", "envy"));
      }
      return seatBox(seat, head, handBox(seat, "player", h), line);
    });
  }

  function drawResult(res) {
    const b = res.bank;
    const o = res.outcome;
    const pd = o && o.player_dealer;
    $("pg-bank").textContent = b ? `seat ${b.seat} \u00b7 bank ${b.start} \u2192 ${b.end}` : "";
    if (o) drawDice(o.dice, o.total, o.first_seat, o.button_seat);
    else drawDice(null);
    const dealer = handBox(pd ? pd.seat : 0, "player-dealer", pd);
    if (pd && pd.house_way_row) {
      dealer.append(el("div", { class: "pg-way" }, `house way: ${rankName(pd.house_way_row)}`));
    }
    $("pg-dealer-hand").replaceChildren(dealer);
    $("pg-title").textContent = res.void || !o
      ? `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`
      : `Round ${res.round} result`;
    const seats = o ? resultSeats(res) : [];
    $("pg-seats").replaceChildren(...seats);
    $("pg-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  function note(st) {
    if (!st) return "";
    if (st.phase === "betting") {
      const pd = st.player_dealer;
      return pd ? `Bank posted: seat ${pd.seat}, ${pd.bank}`
        : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
    }
    if (st.phase === "closed") return "Shake the dice";
    if (st.phase === "dealing") return `${(st.hands_dealt || []).length} of 7 hands dealt`;
    if (st.phase === "setting" && (st.awaiting_setting || []).length) {
      return `Seat ${st.awaiting_setting.join(", ")} to set`;
    }
    return "";
  }

  global.TablectlViews["pai-gow"] = {
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const sb = ctx.sb;
      const st = sb.state;
      const what = shown(sb);
      if (what.res) drawResult(what.res);
      else if (what.st) drawLive(what.st);
      $("pg-phase").textContent = st ? PHASES[st.phase] || st.phase : "";
      $("pg-phase").dataset.phase = st ? st.phase : "";
      $("pg-note").textContent = note(st);
      $("pg-action").textContent = st && (st.wagers || []).length ? `Total action ${st.total_action}` : "";
      const hits = table.sideBetHits(sb.results, 3);
      $("pg-hits").replaceChildren(...hits);
      $("pg-hits-row").hidden = !hits.length;
    },
    facts(ctx) {
      const st = ctx.sb.state;
      return st ? { round: st.round, phase: st.phase } : {};
    },
  };
})(window);
