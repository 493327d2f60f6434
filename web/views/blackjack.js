/* The scoreboard's blackjack view (screen "blackjack": Pure 21.5 Blackjack, Pure Spanish 21.5).
 * docs/scoreboard.md "Blackjack".
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
  const table = global.TablectlViews.table;

  const PHASES = { betting: "Betting", dealing: "Dealing", insurance: "Insurance",
    playing: "Playing", "player-dealer": "Player-dealer draws" };
  const ENDS = { stand: "stand", bust: "bust", surrender: "surrendered", rescue: "rescued",
    pure: "Pure 21.5", doubled: "doubled", "split-aces": "split aces", dealt: "" };
  // How a hand ended that its total or its doubles already say.
  const SAID = { pure: true, bust: true, doubled: true };
  const RESULTS = { win: "win", lose: "lose", push: "push", pure: "Pure 21.5", surrender: "surrender",
    rescue: "rescue" };
  const SPOTS = { "red-flex": "Red Flex", buster: "Buster", "match-dealer": "Match the Dealer",
    insurance: "Insurance" };

  const MARKUP = `
  <section class="panel bj-status" id="bj-status">
    <div class="bj-state"><span class="bj-phase" id="bj-phase"></span><span class="bj-note" id="bj-note"></span><span class="bj-action" id="bj-action"></span></div>
    <div class="bj-hits-row" id="bj-hits-row"><h3 id="bj-hits-title">Side-bet hits</h3><ol class="bj-hits" id="bj-hits"></ol></div>
  </section>
  <section class="panel bj-dealer" id="bj-dealer">
    <h2>Player-dealer <span class="bj-who" id="bj-bank"></span></h2>
    <div class="bj-row"><div class="cards" id="bj-dealer-cards"></div><b class="bj-total" id="bj-dealer-total"></b></div>
  </section>
  <section class="panel bj-table" id="bj-table">
    <h2 id="bj-title"></h2>
    <div class="bj-seats" id="bj-seats"></div>
  </section>`;

  const cents = (amount) => Math.round(Number(amount) * 100);
  /** Money won or lost: "+10.00", "\u22125.00", "0.00". */
  function signed(c) {
    const text = (Math.abs(c) / 100).toFixed(2);
    return c > 0 ? `+${text}` : c < 0 ? `\u2212${text}` : text;
  }

  /** A hand's total as the table calls it: "Pure 21.5", "888", "bust 25", "soft 18", "17". */
  function totalText(h) {
    if (!h || !h.rank) return "";
    if (h.rank === "pure-21.5") return "Pure 21.5";
    if (h.rank === "888") return "888";
    if (h.rank === "bust") return `bust ${h.total}`;
    return h.soft ? `soft ${h.total}` : String(h.total);
  }

  /** Which round to draw: the one being dealt, else (betting, nothing dealt) the last result. */
  function shown(sb) {
    const st = sb.state;
    const res = sb.result;
    const idle = !st || (st.phase === "betting" && !(st.hands || []).length);
    if (idle && res && (!st || res.round === st.round - 1)) return { res };
    return { st };
  }

  function bySeat(list) {
    const seats = new Map();
    for (const item of list) {
      if (!seats.has(item.seat)) seats.set(item.seat, []);
      seats.get(item.seat).push(item);
    }
    return seats;
  }

  function handBox(h, line) {
    const box = el("div", { class: "bj-hand", "data-seat": h.seat, "data-hand": h.hand });
    const cards = el("div", { class: "cards" });
    cards.replaceChildren(...(h.cards || []).map(card));
    const row = el("div", { class: "line bj-line" });
    row.append(el("b", { class: "bj-total" }, totalText(h)), ...line);
    box.append(cards, row);
    return box;
  }

  const tag = (text, cls) => el("span", { class: `tag ${cls || ""}`.trim() }, text);

  /** A seat: its number and `head` (its wagers, or what it won), its hands, then `more`. */
  function seatBox(seat, head, hands, more) {
    const box = el("div", { class: "seat bj-seat", "data-seat": seat });
    const h3 = el("h3", {});
    h3.append(el("span", { class: "seat-no" }, `Seat ${seat}`), ...head);
    const list = el("div", { class: "bj-hands" });
    list.append(...hands);
    box.append(h3, list, ...(more ? [more] : []));
    return box;
  }

  // -- the round being dealt (`state`) -----------------------------------------------------

  function liveSeats(st) {
    const hands = bySeat(st.hands || []);
    const wagers = bySeat(st.wagers || []);
    const seats = [...hands.keys(), ...[...wagers.keys()].filter((s) => !hands.has(s))];
    const turn = st.turn || {};
    return seats.map((seat) => {
      const side = new Map();
      let base = 0;
      for (const w of wagers.get(seat) || []) {
        if (w.spot === "base") base += cents(w.amount);
        else side.set(w.spot, (side.get(w.spot) || 0) + cents(w.amount));
      }
      const head = [el("span", { class: "bj-bet" }, (base / 100).toFixed(2))];
      for (const [spot, c] of side) head.push(el("span", { class: "bj-side-bet" }, `${SPOTS[spot] || spot} ${(c / 100).toFixed(2)}`));
      return seatBox(seat, head, (hands.get(seat) || []).map((h) => {
        const line = [];
        if (h.split) line.push(tag("split"));
        if (h.doubles && h.doubles.length) line.push(tag(`doubled ${h.doubles.join(" + ")}`, "double"));
        if (h.end && ENDS[h.end] && !SAID[h.end]) line.push(tag(ENDS[h.end], `end-${h.end}`));
        const hb = handBox(h, line);
        if (turn.seat === h.seat && turn.hand === h.hand) hb.classList.add("turn");
        return hb;
      }));
    });
  }

  function drawLive(st) {
    const pd = st.player_dealer;
    $("bj-bank").textContent = pd
      ? `seat ${pd.seat} \u00b7 bank ${pd.bank} \u00b7 hand ${pd.turn} of 2`
      : st.bank_offer_seat ? `bank offered to seat ${st.bank_offer_seat}` : "no bank posted";
    const shownCards = pd ? [...(pd.cards || []), ...(pd.hole_card_down ? [null] : [])] : [];
    $("bj-dealer-cards").replaceChildren(...shownCards.map(card));
    $("bj-dealer-total").textContent = pd ? totalText(pd) : "";
    $("bj-title").textContent = `Round ${st.round}`;
    $("bj-title").dataset.round = st.round;
    $("bj-title").dataset.result = "";
    const seats = liveSeats(st);
    $("bj-seats").replaceChildren(...seats);
    $("bj-seats").style.setProperty("--seats", Math.max(seats.length, 1));
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
    const rows = bySeat(res.settlements || []);
    const hands = bySeat(o.hands || []);
    const seats = [...hands.keys(), ...[...rows.keys()].filter((s) => !hands.has(s))];
    return seats.map((seat) => {
      const mine = rows.get(seat) || [];
      const net = mine.reduce((sum, s) => sum + cents(s.net), 0);
      const head = [el("span", { class: `bj-net ${net > 0 ? "win" : net < 0 ? "lose" : "push"}`, "data-net": signed(net) }, signed(net))];
      const drawn = (hands.get(seat) || []).map((h) => {
        const base = mine.filter((s) => s.spot === "base" && s.hand === h.hand);
        const line = [];
        if (h.split) line.push(tag("split"));
        if (h.doubles && h.doubles.length) line.push(tag(`doubled ${h.doubles.join(" + ")}`, "double"));
        if (base.length) {
          const c = base.reduce((sum, s) => sum + cents(s.net), 0);
          const verdict = base[0].result || base[0].status;
          line.push(el("span", { class: `bj-result r-${verdict}`, "data-result": verdict },
            `${RESULTS[verdict] || verdict} ${c ? signed(c) : ""}`.trim()));
        }
        return handBox(h, line);
      });
      const side = mine.filter((s) => s.spot !== "base");
      let list = null;
      if (side.length) {
        list = el("ul", { class: "bj-spots" });
        for (const s of side) {
          const what = sideText(s.spot, seat, o);
          const c = cents(s.net);
          list.append(el("li", { class: c > 0 ? "win" : c < 0 ? "lose" : "push", "data-spot": s.spot, "data-net": s.net },
            `${SPOTS[s.spot] || s.spot}${what ? ` ${what}` : ""} ${signed(c)}`));
        }
      }
      return seatBox(seat, head, drawn, list);
    });
  }

  function drawResult(res) {
    const b = res.bank;
    $("bj-bank").textContent = b ? `seat ${b.seat} \u00b7 bank ${b.start} \u2192 ${b.end}` : "";
    const o = res.outcome;
    const pd = o && o.player_dealer;
    $("bj-dealer-cards").replaceChildren(...(pd ? pd.cards : []).map(card));
    $("bj-dealer-total").textContent = pd ? totalText(pd) : "";
    $("bj-title").textContent = res.void || !o
      ? `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`
      : `Round ${res.round} result`;
    $("bj-title").dataset.round = res.round;
    $("bj-title").dataset.result = res.void ? "void" : "shown";
    const seats = o ? resultSeats(res) : [];
    $("bj-seats").replaceChildren(...seats);
    $("bj-seats").style.setProperty("--seats", Math.max(seats.length, 1));
  }

  function note(st) {
    if (!st) return "";
    if (st.phase === "betting") {
      const pd = st.player_dealer;
      return pd ? `Bank posted: seat ${pd.seat}, ${pd.bank}`
        : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
    }
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

  global.TablectlViews.blackjack = {
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const sb = ctx.sb;
      const st = sb.state;
      const what = shown(sb);
      if (what.res) drawResult(what.res);
      else if (what.st) drawLive(what.st);
      $("bj-phase").textContent = st ? PHASES[st.phase] || st.phase : "";
      $("bj-phase").dataset.phase = st ? st.phase : "";
      $("bj-note").textContent = note(st);
      $("bj-action").textContent = st && (st.wagers || []).length ? `Total action ${st.total_action}` : "";
      const hits = table.sideBetHits(sb.results, 3);
      $("bj-hits").replaceChildren(...hits);
      $("bj-hits-row").hidden = !hits.length;
    },
    facts(ctx) {
      const st = ctx.sb.state;
      return st ? { round: st.round, phase: st.phase } : {};
    },
  };
})(window);
