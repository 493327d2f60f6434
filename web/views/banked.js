/* What the scoreboard's four banked views share (docs/scoreboard.md "The banked games' views"):
 * blackjack.js, three-card-poker.js, pai-gow.js and ultimate.js, the games whose player-dealer
 * banks the table. One classic script, loaded after draw.js and before those views, that
 * defines `TablectlBanked`:
 *
 *   const B = TablectlBanked;
 *   B.cents("10.50") 1050;  B.signed(-500) "−5.00";  B.money(1050) "10.50"
 *   B.outcome(c)           "win" "lose" "push": a sum of money's class
 *   B.rankName("three-of-a-kind")   "Three of a kind" (a rank or a pay table's category)
 *   B.bySeat(list)         Map seat -> the items of `list` with that `seat`, in order
 *   B.seatOrder(first, more)  the keys of `first` (a Map), then those of `more` not in it
 *   B.settled(res)         a result's seats, hand first: [{seat, hand, rows, net}]
 *   B.tag(text, cls)       a <span class="tag cls">: a word on a hand's line
 *   B.seat(seat, head, ...children)   a seat's box: "Seat N" and `head`, then its children
 *   B.hand(seat, id, cards, line)     a hand: its cards (null: face down) over its line
 *   B.bets(wagers, names)  a seat's wagers in play, a <span> a spot: "Ante 10.00"
 *   B.net(c)               what a seat won or lost in all: "+25.00"
 *   B.moneyLines(rows, label)         what each wager won or lost, a <li> each ("Ante +10.00")
 *   B.verdict(result, cls, text)      a hand's result ("wins") with its data-result
 *
 *   TablectlViews["<screen>"] = B.view({ prefix, status, dealer, phases, idle, live, result,
 *                                        note, liveSeats, resultSeats });
 *
 * `B.view` makes the whole view (TablectlDraw's mount, render, facts) from what is the game's
 * own. Its <main> (class `banked`) holds three panels, their ids under the game's `prefix`
 * ("bj", "tcp", "pg", "uth"): `<p>-status` (the phase `<p>-phase`, what the round waits for
 * `<p>-note`, the total action `<p>-action`, then `status`, the game's own markup, then the
 * side-bet hits `<p>-hits`), `<p>-dealer` (the player-dealer: its seat and bank `<p>-bank`,
 * then `dealer`, the game's markup of its cards) and `<p>-table` (the title `<p>-title`, the
 * seats `<p>-seats`); the frame adds the posted panel. While a round is being dealt it draws
 * `state` (`live(st)`: the game's dealer panel and status; `liveSeats(st)`: the seats' boxes);
 * between rounds (`betting` and `idle(st)`: nothing of the next round dealt yet) the last round
 * as `round/result` shows it (`result(res)`, `resultSeats(res)`). `phases` names the phases,
 * `note(st)` says what a phase other than betting waits for.
 *
 * A full table (docs/scoreboard.md "A full table"): after each drawing (the frame draws again
 * when the window is resized), `fit` lays the view out so that every seat shows whole, with the
 * cards as large as that allows and never under the floor a 3 m read needs (--card-h from 8.5u
 * down to 7.42u: 80 px at 1080 lines, 53 at 720): the seats beside the posted panel while they
 * fit there ("wide"), else a full table's layouts, "side" or "band" (banked.css). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;
  const table = global.TablectlViews.table;

  const cents = (amount) => Math.round(Number(amount) * 100);
  /** Money won or lost: "+10.00", "\u22125.00", "0.00". */
  function signed(c) {
    const text = (Math.abs(c) / 100).toFixed(2);
    return c > 0 ? `+${text}` : c < 0 ? `\u2212${text}` : text;
  }
  const money = (c) => (c / 100).toFixed(2);
  const outcome = (c) => (c > 0 ? "win" : c < 0 ? "lose" : "push");

  /** A rank or category as the layout reads it: "three-of-a-kind" "Three of a kind",
   * "five-aces" "5 aces". */
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

  const seatOrder = (first, more) => [...first.keys(), ...[...more.keys()].filter((s) => !first.has(s))];

  /** The seats of a `round/result` whose hands are one a seat (`outcome.hands`), those with a
   * hand first: [{seat, hand (undefined: none), rows (its settlements), net (their sum, cents)}]. */
  function settled(res) {
    const rows = bySeat(res.settlements || []);
    const hands = new Map((res.outcome.hands || []).map((h) => [h.seat, h]));
    return seatOrder(hands, rows).map((seat) => {
      const mine = rows.get(seat) || [];
      return { seat, hand: hands.get(seat), rows: mine,
        net: mine.reduce((sum, s) => sum + cents(s.net), 0) };
    });
  }

  const tag = (text, cls) => el("span", { class: `tag ${cls || ""}`.trim() }, text);

  /** A seat's box: "Seat N" and `head` (its wagers, or what it won), then `children`. */
  function seat(number, head, ...children) {
    const box = el("div", { class: "seat bk-seat", "data-seat": number });
    const h3 = el("h3", {});
    h3.append(el("span", { class: "seat-no" }, `Seat ${number}`), ...head);
    box.append(h3, ...children.filter(Boolean));
    return box;
  }

  /** A hand: its cards (a null one face down, naming nothing) over its line (`line`: elements). */
  function hand(number, id, cards, line) {
    const box = el("div", { class: "bk-hand", "data-seat": number, "data-hand": id });
    const row = el("div", { class: "cards" });
    row.replaceChildren(...cards.map(card));
    const text = el("div", { class: "line bk-line" });
    text.append(...line);
    box.append(row, text);
    return box;
  }

  /** A seat's wagers in play, one <span> a spot, in the order of `names` (a spot it does not
   * name last, by its id): "Ante 10.00"; a spot named "" shows its amount alone. */
  function bets(wagers, names) {
    const spots = new Map();
    for (const w of wagers) spots.set(w.spot, (spots.get(w.spot) || 0) + cents(w.amount));
    const order = Object.keys(names);
    const rank = (spot) => (order.includes(spot) ? order.indexOf(spot) : order.length);
    return [...spots].sort((a, b) => rank(a[0]) - rank(b[0])).map(([spot, c]) => {
      const name = spot in names ? names[spot] : spot;
      return el("span", { class: "bk-bet", "data-bet": spot }, `${name} ${money(c)}`.trim());
    });
  }

  /** What a seat won or lost in all. */
  const net = (c) => el("span", { class: `bk-net ${outcome(c)}`, "data-net": signed(c) }, signed(c));

  /** What each of `rows` (settlements) won or lost: a <ul>, a <li> each, "<label(s)> +10.00". */
  function moneyLines(rows, label) {
    const list = el("ul", { class: "bk-spots" });
    for (const s of rows) {
      const c = cents(s.net);
      list.append(el("li", { class: outcome(c), "data-spot": s.spot, "data-net": s.net },
        `${label(s)} ${signed(c)}`));
    }
    return list;
  }

  /** A hand's result: `result` its data-result, `cls` its colour (win, lose, push). */
  const verdict = (result, cls, text) =>
    el("span", { class: `bk-result ${cls}`, "data-result": result }, text);

  /** The frame of a banked view: the three panels, each game's own markup inside. */
  function markup(p, status, dealer) {
    return `
  <section class="panel bk-status" id="${p}-status">
    <div class="bk-state"><span class="bk-phase" id="${p}-phase"></span><span class="bk-note" id="${p}-note"></span><span class="bk-action" id="${p}-action"></span></div>${status || ""}
    <div class="bk-hits-row" id="${p}-hits-row"><h3 id="${p}-hits-title">Side-bet hits</h3><ol class="bk-hits" id="${p}-hits"></ol></div>
  </section>
  <section class="panel bk-dealer" id="${p}-dealer">
    <h2>Player-dealer <span class="bk-who" id="${p}-bank"></span></h2>${dealer}
  </section>
  <section class="panel bk-table" id="${p}-table">
    <h2 id="${p}-title"></h2>
    <div class="bk-seats" id="${p}-seats"></div>
  </section>`;
  }

  /** What the round waits for while betting: the bank. */
  function bettingNote(st) {
    const pd = st.player_dealer;
    return pd ? `Bank posted: seat ${pd.seat}, ${pd.bank}`
      : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
  }

  // -- a full table ------------------------------------------------------------------------

  // The cards' heights tried, in units of --u, largest first: 8.5u is every view's (92 px at
  // 1080 lines), 7.42u the floor a 3 m read needs (80 px at 1080 lines, 53.4 at 720).
  const CARD_HEIGHTS = [8.5, 8.2, 7.9, 7.65, 7.42];
  const FULL = ["side", "band"];  // the full table's layouts (banked.css)

  const overflows = (e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1;

  /** Whether the view shows all it holds: nothing beyond its <main>, every panel but the posted
   * one whole, each seat whole inside the seats' box, and what the table posts able to show in
   * its place a page at a time (`postedFits`, the frame's). */
  function fits(root, postedFits) {
    const panels = root.querySelectorAll(":scope > .panel:not(#posted-panel)");
    const seats = root.querySelector(".bk-seats");
    return !overflows(root) && ![...panels].some(overflows) && !overflows(seats)
      && ![...seats.children].some(overflows) && postedFits();
  }

  /** The layout and card height that show every seat whole (data-layout, --card-h, and --cols
   * and data-cols, the columns of seats): the largest cards first; at each, the seats beside the
   * posted panel ("wide"), else a full table's layouts with the fewest columns of seats (the
   * widest seats) that fit. None fitting, the last tried stays: the smallest cards, "band", one
   * column a seat. */
  function fit(root, postedFits) {
    if (root.hidden || !root.isConnected) return;
    const n = Math.max(root.querySelector(".bk-seats").children.length, 1);
    const attempt = (layout, h, cols) => {
      root.dataset.layout = layout;
      root.style.setProperty("--card-h", `calc(var(--u) * ${h})`);
      root.style.setProperty("--cols", cols);
      root.dataset.cols = cols;
      return fits(root, postedFits || (() => true));
    };
    for (const h of CARD_HEIGHTS) {
      if (attempt("wide", h, n)) return;
      for (const layout of FULL) {
        for (let cols = 1; cols <= n; cols++) if (attempt(layout, h, cols)) return;
      }
    }
  }

  // -- the view ----------------------------------------------------------------------------

  /** A banked game's view (TablectlDraw's mount, render, facts) from what is its own. */
  function view(spec) {
    const p = spec.prefix;

    function drawSeats(title, seats, round, result) {
      $(`${p}-title`).textContent = title;
      $(`${p}-title`).dataset.round = round;
      $(`${p}-title`).dataset.result = result;
      $(`${p}-seats`).replaceChildren(...seats);
      $(`${p}-seats`).style.setProperty("--seats", Math.max(seats.length, 1));
    }

    function drawLive(st) {
      const pd = st.player_dealer;
      $(`${p}-bank`).textContent = pd
        ? `seat ${pd.seat} \u00b7 bank ${pd.bank} \u00b7 hand ${pd.turn} of 2`
        : st.bank_offer_seat ? `bank offered to seat ${st.bank_offer_seat}` : "no bank posted";
      spec.live(st);
      drawSeats(`Round ${st.round}`, spec.liveSeats(st), st.round, "");
    }

    function drawResult(res) {
      const b = res.bank;
      $(`${p}-bank`).textContent = b ? `seat ${b.seat} \u00b7 bank ${b.start} \u2192 ${b.end}` : "";
      spec.result(res);
      const title = res.void || !res.outcome
        ? `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`
        : `Round ${res.round} result`;
      drawSeats(title, res.outcome ? spec.resultSeats(res) : [], res.round, res.void ? "void" : "shown");
    }

    return {
      mount(root) {
        root.classList.add("banked");
        root.innerHTML = markup(p, spec.status, spec.dealer);
      },
      render(root, ctx) {
        const sb = ctx.sb;
        const st = sb.state;
        const res = sb.result;
        // The round being dealt, else (betting, nothing of it dealt yet) the last result.
        const idle = !st || (st.phase === "betting" && spec.idle(st));
        if (idle && res && (!st || res.round === st.round - 1)) drawResult(res);
        else if (st) drawLive(st);
        $(`${p}-phase`).textContent = st ? spec.phases[st.phase] || st.phase : "";
        $(`${p}-phase`).dataset.phase = st ? st.phase : "";
        $(`${p}-note`).textContent = !st ? "" : st.phase === "betting" ? bettingNote(st) : spec.note(st);
        $(`${p}-action`).textContent = st && (st.wagers || []).length ? `Total action ${st.total_action}` : "";
        const hits = table.sideBetHits(sb.results, 3);
        $(`${p}-hits`).replaceChildren(...hits);
        $(`${p}-hits-row`).hidden = !hits.length;
        fit(root, ctx.postedFits);
      },
      facts(ctx) {
        const st = ctx.sb.state;
        return st ? { round: st.round, phase: st.phase } : {};
      },
    };
  }

  global.TablectlBanked = {
    cents, signed, money, outcome, rankName, bySeat, seatOrder, settled, tag, seat, hand, bets, net,
    moneyLines, verdict, view, fit,
  };
})(window);
