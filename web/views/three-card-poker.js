/* The scoreboard's Three Card Poker view (screen "three-card-poker": Three Card Poker 6 Card
 * Bonus). docs/scoreboard.md "Three Card Poker".
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
  const table = global.TablectlViews.table;

  const PHASES = { betting: "Betting", dealing: "Dealing", deciding: "Deciding" };
  const SPOTS = { ante: "Ante", play: "Play", "pair-plus": "Pair Plus", "six-card-bonus": "6 Card Bonus" };
  const SHOWDOWN = { win: "wins", lose: "loses", tie: "ties" };

  const MARKUP = `
  <section class="panel tcp-status" id="tcp-status">
    <div class="tcp-state"><span class="tcp-phase" id="tcp-phase"></span><span class="tcp-note" id="tcp-note"></span><span class="tcp-action" id="tcp-action"></span></div>
    <div class="tcp-hits-row" id="tcp-hits-row"><h3 id="tcp-hits-title">Side-bet hits</h3><ol class="tcp-hits" id="tcp-hits"></ol></div>
  </section>
  <section class="panel tcp-dealer" id="tcp-dealer">
    <h2>Player-dealer <span class="tcp-who" id="tcp-bank"></span></h2>
    <div class="tcp-row"><div class="cards" id="tcp-dealer-cards"></div><b class="tcp-rank" id="tcp-dealer-rank"></b></div>
  </section>
  <section class="panel tcp-table" id="tcp-table">
    <h2 id="tcp-title"></h2>
    <div class="tcp-seats" id="tcp-seats"></div>
  </section>`;

  const cents = (amount) => Math.round(Number(amount) * 100);
  /** Money won or lost: "+10.00", "\u22125.00", "0.00". */
  function signed(c) {
    const text = (Math.abs(c) / 100).toFixed(2);
    return c > 0 ? `+${text}` : c < 0 ? `\u2212${text}` : text;
  }
  const outcomeClass = (c) => (c > 0 ? "win" : c < 0 ? "lose" : "push");
  /** A hand's rank as the layout reads it: "three-of-a-kind" "Three of a kind". */
  function rankName(rank) {
    if (!rank) return "";
    const text = rank.replace(/-/g, " ");
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

  /** Which round to draw: the one being dealt, else (betting, no stack out) the last result. */
  function shown(sb) {
    const st = sb.state;
    const res = sb.result;
    const idle = !st || (st.phase === "betting" && !(st.hands || []).some((h) => h.dealt));
    if (idle && res && (!st || res.round === st.round - 1)) return { res };
    return { st };
  }

  /** A seat: its number, `head` (its wagers or its net), its hand (cards and a line), `more`. */
  function seatBox(seat, head, cards, line, more) {
    const box = el("div", { class: "seat tcp-seat", "data-seat": seat });
    const h3 = el("h3", {});
    h3.append(el("span", { class: "seat-no" }, `Seat ${seat}`), ...head);
    const hand = el("div", { class: "tcp-hand", "data-seat": seat, "data-hand": "player" });
    const row = el("div", { class: "cards" });
    row.replaceChildren(...cards.map(card));
    const text = el("div", { class: "line tcp-line" });
    text.append(...line);
    hand.append(row, text);
    box.append(h3, hand, ...(more ? [more] : []));
    return box;
  }

  const tag = (text, cls) => el("span", { class: `tag ${cls || ""}`.trim() }, text);

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const hands = new Map((st.hands || []).map((h) => [h.seat, h]));
    const wagers = bySeat(st.wagers || []);
    const seats = [...hands.keys(), ...[...wagers.keys()].filter((s) => !hands.has(s))];
    return seats.map((seat) => {
      const h = hands.get(seat) || {};
      const spots = new Map();
      for (const w of wagers.get(seat) || []) spots.set(w.spot, (spots.get(w.spot) || 0) + cents(w.amount));
      const head = [...spots].map(([spot, c]) =>
        el("span", { class: "tcp-bet" }, `${SPOTS[spot] || spot} ${(c / 100).toFixed(2)}`));
      const folded = h.decision === "fold";
      const line = [];
      if (h.decision) line.push(tag(h.decision === "play" ? "plays" : "folded", `d-${h.decision}`));
      const box = seatBox(seat, head, h.dealt && !folded ? [null, null, null] : [], line);
      if (st.next_decision === seat) box.classList.add("turn");
      return box;
    });
  }

  function drawLive(st) {
    const pd = st.player_dealer;
    $("tcp-bank").textContent = pd
      ? `seat ${pd.seat} \u00b7 bank ${pd.bank} \u00b7 hand ${pd.turn} of 2`
      : st.bank_offer_seat ? `bank offered to seat ${st.bank_offer_seat}` : "no bank posted";
    $("tcp-dealer-cards").replaceChildren(...(pd && pd.face_up ? [pd.face_up, null, null] : []).map(card));
    $("tcp-dealer-rank").textContent = "";
    $("tcp-title").textContent = `Round ${st.round}`;
    const seats = liveSeats(st);
    $("tcp-seats").replaceChildren(...seats);
    $("tcp-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  // -- the last round (`round/result`) -----------------------------------------------------

  function resultSeats(res) {
    const o = res.outcome;
    const rows = bySeat(res.settlements || []);
    const hands = new Map((o.hands || []).map((h) => [h.seat, h]));
    const seats = [...hands.keys(), ...[...rows.keys()].filter((s) => !hands.has(s))];
    return seats.map((seat) => {
      const h = hands.get(seat) || {};
      const mine = rows.get(seat) || [];
      const net = mine.reduce((sum, s) => sum + cents(s.net), 0);
      const head = [el("span", { class: `tcp-net ${outcomeClass(net)}`, "data-net": signed(net) }, signed(net))];
      const line = [];
      if (h.decision === "fold") line.push(tag("folded", "d-fold"));
      else if (h.rank) {
        line.push(el("b", { class: "tcp-rank" }, rankName(h.rank)));
        const verdict = h.showdown === null ? "push" : h.showdown;
        line.push(el("span", { class: `tcp-result ${verdict === "win" ? "win" : verdict === "lose" ? "lose" : "push"}`,
          "data-result": h.showdown === null ? "no-qualify" : h.showdown },
        h.showdown === null ? "dealer does not qualify" : SHOWDOWN[h.showdown] || h.showdown));
      }
      const list = el("ul", { class: "tcp-spots" });
      if (h.six_card_bonus) {
        list.append(el("li", { class: "tcp-six" }, `6 Card Bonus hand: ${rankName(h.six_card_bonus.rank)}`));
      }
      for (const s of mine) {
        const c = cents(s.net);
        list.append(el("li", { class: outcomeClass(c), "data-spot": s.spot, "data-net": s.net },
          `${SPOTS[s.spot] || s.spot} ${signed(c)}`));
      }
      return seatBox(seat, head, h.cards || [], line, list);
    });
  }

  function drawResult(res) {
    const b = res.bank;
    $("tcp-bank").textContent = b ? `seat ${b.seat} \u00b7 bank ${b.start} \u2192 ${b.end}` : "";
    const o = res.outcome;
    const pd = o && o.player_dealer;
    $("tcp-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("tcp-dealer-rank").textContent = pd
      ? `${rankName(pd.rank)}, ${pd.qualified ? "qualifies" : "does not qualify"}` : "";
    $("tcp-title").textContent = res.void || !o
      ? `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`
      : `Round ${res.round} result`;
    const seats = o ? resultSeats(res) : [];
    $("tcp-seats").replaceChildren(...seats);
    $("tcp-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  function note(st) {
    if (!st) return "";
    if (st.phase === "betting") {
      const pd = st.player_dealer;
      return pd ? `Bank posted: seat ${pd.seat}, ${pd.bank}`
        : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
    }
    if (st.phase === "dealing" && st.next_stack !== null && st.next_stack !== undefined) {
      const pd = st.player_dealer;
      return pd && st.next_stack === pd.seat ? "Next stack: the player-dealer" : `Next stack: seat ${st.next_stack}`;
    }
    if (st.phase === "deciding" && st.next_decision) return `Seat ${st.next_decision} to play or fold`;
    return "";
  }

  global.TablectlViews["three-card-poker"] = {
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const sb = ctx.sb;
      const st = sb.state;
      const what = shown(sb);
      if (what.res) drawResult(what.res);
      else if (what.st) drawLive(what.st);
      $("tcp-phase").textContent = st ? PHASES[st.phase] || st.phase : "";
      $("tcp-phase").dataset.phase = st ? st.phase : "";
      $("tcp-note").textContent = note(st);
      $("tcp-action").textContent = st && (st.wagers || []).length ? `Total action ${st.total_action}` : "";
      const hits = table.sideBetHits(sb.results, 3);
      $("tcp-hits").replaceChildren(...hits);
      $("tcp-hits-row").hidden = !hits.length;
    },
    facts(ctx) {
      const st = ctx.sb.state;
      return st ? { round: st.round, phase: st.phase } : {};
    },
  };
})(window);
