/* The scoreboard's Ultimate Texas Hold'em view (screen "ultimate"). docs/scoreboard.md
 * "Ultimate Texas Hold'em".
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
  const table = global.TablectlViews.table;

  const PHASES = { betting: "Betting", dealing: "Dealing", preflop: "Pre-flop", flop: "Flop",
    river: "River" };
  const STREETS = { preflop: "bet 3x or 4x, or check", flop: "bet 2x or check", river: "bet 1x or fold" };
  const SPOTS = { ante: "Ante", blind: "Blind", play: "Play", trips: "Trips", "bad-beat": "Bad Beat" };
  const RESULTS = { win: "wins", lose: "loses", push: "pushes", fold: "folded" };
  const DEALT = new Set(["preflop", "flop", "river"]);

  const MARKUP = `
  <section class="panel uth-status" id="uth-status">
    <div class="uth-state"><span class="uth-phase" id="uth-phase"></span><span class="uth-note" id="uth-note"></span><span class="uth-action" id="uth-action"></span></div>
    <div class="uth-hits-row" id="uth-hits-row"><h3 id="uth-hits-title">Side-bet hits</h3><ol class="uth-hits" id="uth-hits"></ol></div>
  </section>
  <section class="panel uth-dealer" id="uth-dealer">
    <h2>Player-dealer <span class="uth-who" id="uth-bank"></span></h2>
    <div class="uth-top">
      <div class="cards" id="uth-dealer-cards"></div>
      <div class="uth-board-box"><h3>Board</h3><div class="cards uth-board" id="uth-board"></div></div>
    </div>
    <div class="uth-rank" id="uth-dealer-rank"></div>
  </section>
  <section class="panel uth-table" id="uth-table">
    <h2 id="uth-title"></h2>
    <div class="uth-seats" id="uth-seats"></div>
  </section>`;

  const cents = (amount) => Math.round(Number(amount) * 100);
  /** Money won or lost: "+10.00", "\u22125.00", "0.00". */
  function signed(c) {
    const text = (Math.abs(c) / 100).toFixed(2);
    return c > 0 ? `+${text}` : c < 0 ? `\u2212${text}` : text;
  }
  const outcomeClass = (c) => (c > 0 ? "win" : c < 0 ? "lose" : "push");
  /** A rank as the layout reads it: "three-of-a-kind" "Three of a kind". */
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

  /** Which round to draw: the one being dealt, else (betting, nothing dealt) the last result. */
  function shown(sb) {
    const st = sb.state;
    const res = sb.result;
    const idle = !st || (st.phase === "betting" && !(st.hands || []).length);
    if (idle && res && (!st || res.round === st.round - 1)) return { res };
    return { st };
  }

  function seatBox(seat, head, cards, line, more) {
    const box = el("div", { class: "seat uth-seat", "data-seat": seat });
    const h3 = el("h3", {});
    h3.append(el("span", { class: "seat-no" }, `Seat ${seat}`), ...head);
    const hand = el("div", { class: "uth-hand", "data-seat": seat, "data-hand": "player" });
    const row = el("div", { class: "cards" });
    row.replaceChildren(...cards.map(card));
    const text = el("div", { class: "line uth-line" });
    text.append(...line);
    hand.append(row, text);
    box.append(h3, hand, ...(more ? [more] : []));
    return box;
  }

  const tag = (text, cls) => el("span", { class: `tag ${cls || ""}`.trim() }, text);

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const wagers = bySeat(st.wagers || []);
    const plays = new Map((st.plays || []).map((p) => [p.seat, p]));
    const folded = new Set(st.folded || []);
    const hands = st.hands || [];
    const seats = [...hands, ...[...wagers.keys()].filter((s) => !hands.includes(s))];
    return seats.map((seat) => {
      const spots = new Map();
      for (const w of wagers.get(seat) || []) spots.set(w.spot, (spots.get(w.spot) || 0) + cents(w.amount));
      const head = [...spots].map(([spot, c]) =>
        el("span", { class: "uth-bet" }, `${SPOTS[spot] || spot} ${(c / 100).toFixed(2)}`));
      const line = [];
      const play = plays.get(seat);
      if (play) line.push(tag(`Play ${play.multiple}x ${play.amount}`, "play"));
      if (folded.has(seat)) line.push(tag("folded", "fold"));
      const dealt = hands.includes(seat) && !folded.has(seat);
      const box = seatBox(seat, head, dealt ? [null, null] : [], line);
      if (st.to_act === seat) box.classList.add("turn");
      return box;
    });
  }

  function drawLive(st) {
    const pd = st.player_dealer;
    $("uth-bank").textContent = pd
      ? `seat ${pd.seat} \u00b7 bank ${pd.bank} \u00b7 hand ${pd.turn} of 2`
      : st.bank_offer_seat ? `bank offered to seat ${st.bank_offer_seat}` : "no bank posted";
    // The player-dealer's stack comes after the seats', the board's last (state.next_stack).
    const next = st.next_stack && st.next_stack.to;
    const dealerDealt = DEALT.has(st.phase) || next === "board";
    const boardDealt = DEALT.has(st.phase);
    $("uth-dealer-cards").replaceChildren(...(dealerDealt ? [null, null] : []).map(card));
    $("uth-dealer-rank").textContent = "";
    const board = st.board || [];
    const down = boardDealt ? Array(Math.max(0, 5 - board.length)).fill(null) : [];
    $("uth-board").replaceChildren(...[...board, ...down].map(card));
    $("uth-title").textContent = `Round ${st.round}`;
    const seats = liveSeats(st);
    $("uth-seats").replaceChildren(...seats);
    $("uth-seats").style.setProperty("--seats", Math.max(seats.length, 1));
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
      const head = [el("span", { class: `uth-net ${outcomeClass(net)}`, "data-net": signed(net) }, signed(net))];
      const line = [];
      if (h.rank) line.push(el("b", { class: "uth-rank" }, rankName(h.rank)));
      if (h.result) {
        line.push(el("span", { class: `uth-result ${h.result === "win" ? "win" : h.result === "push" ? "push" : "lose"}`,
          "data-result": h.result }, RESULTS[h.result] || h.result));
      }
      const list = el("ul", { class: "uth-spots" });
      for (const s of mine) {
        const c = cents(s.net);
        list.append(el("li", { class: outcomeClass(c), "data-spot": s.spot, "data-net": s.net },
          `${SPOTS[s.spot] || s.spot} ${signed(c)}`));
      }
      return seatBox(seat, head, h.folded ? [] : h.cards || [], line, list);
    });
  }

  function drawResult(res) {
    const b = res.bank;
    $("uth-bank").textContent = b ? `seat ${b.seat} \u00b7 bank ${b.start} \u2192 ${b.end}` : "";
    const o = res.outcome;
    const pd = o && o.player_dealer;
    $("uth-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("uth-dealer-rank").textContent = pd
      ? `${rankName(pd.rank)}, ${pd.qualifies ? "qualifies" : "does not qualify"}`
      : o ? "every player folded" : "";
    $("uth-board").replaceChildren(...(o ? o.board || [] : []).map(card));
    $("uth-title").textContent = res.void || !o
      ? `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`
      : `Round ${res.round} result`;
    const seats = o ? resultSeats(res) : [];
    $("uth-seats").replaceChildren(...seats);
    $("uth-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  function note(st) {
    if (!st) return "";
    if (st.phase === "betting") {
      const pd = st.player_dealer;
      return pd ? `Bank posted: seat ${pd.seat}, ${pd.bank}`
        : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
    }
    if (st.phase === "dealing" && st.next_stack) {
      const n = st.next_stack;
      return n.to === "board" ? "Next: the board" : n.to === "player-dealer"
        ? "Next: the player-dealer's cards" : `Next: seat ${n.seat}'s cards`;
    }
    if (STREETS[st.phase] && st.to_act) return `Seat ${st.to_act} to ${STREETS[st.phase]}`;
    return "";
  }

  global.TablectlViews.ultimate = {
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const sb = ctx.sb;
      const st = sb.state;
      const what = shown(sb);
      if (what.res) drawResult(what.res);
      else if (what.st) drawLive(what.st);
      $("uth-phase").textContent = st ? PHASES[st.phase] || st.phase : "";
      $("uth-phase").dataset.phase = st ? st.phase : "";
      $("uth-note").textContent = note(st);
      $("uth-action").textContent = st && (st.wagers || []).length ? `Total action ${st.total_action}` : "";
      const hits = table.sideBetHits(sb.results, 3);
      $("uth-hits").replaceChildren(...hits);
      $("uth-hits-row").hidden = !hits.length;
    },
    facts(ctx) {
      const st = ctx.sb.state;
      return st ? { round: st.round, phase: st.phase } : {};
    },
  };
})(window);
