/* The table-side scoreboard (docs/scoreboard.md): reads one table's retained topics over
 * MQTT-over-WebSockets (mqtt-ws.js) and draws them. It subscribes to five topics below the
 * table's base and nothing else: `status`, `info` (what the table posts: limits, pay tables,
 * the collection schedule), `state`, `display/eztrak` and `round/result`, the topics a
 * read-only display user may read. It never asks for `broadcast/#` (the delayed feed with every
 * card), `event`, or anything of another table: it can show only what the table has already
 * shown, because those topics carry nothing more (docs/mqtt.md, "The card-exposure rule").
 *
 * Address: scoreboard.html?table=tablectl/<site>/<table>[&broker=ws://host:port/mqtt]
 *          [&keepalive=30][&record=1]#user=<user>&pass=<password>
 * The user and password may also be query parameters; in the fragment (after #) they never
 * reach the web server or its log. `record=1` keeps every message received in
 * `window.scoreboard.received` (a test's witness); otherwise only the last 200 are kept.
 */
(function () {
  "use strict";

  const link = TablectlPage.link();
  const params = link.params;
  const base = (params.get("table") || "").replace(/\/+$/, "");
  const brokerUrl = link.brokerUrl;
  const keepAll = link.keepAll;
  const { gameName, tsMillis } = TablectlPage;
  const TOPICS = ["status", "info", "state", "display/eztrak", "round/result"];
  const KEPT = 200;

  const STATS = [
    ["player", "Player"], ["banker", "Banker"], ["tie", "Tie"], ["dragon7", "Dragon 7"],
    ["panda8", "Panda 8"], ["naturals", "Naturals"], ["player_naturals", "Player naturals"],
    ["banker_naturals", "Banker naturals"],
  ];
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  const ROWS = 6;

  // Everything the page knows, on window for a test or a technician's console.
  const sb = (window.scoreboard = {
    base, broker: brokerUrl, topics: TOPICS.map((t) => `${base}/${t}`),
    received: [],        // every PUBLISH received: {n, topic, payload (text), qos, retain, at}
    granted: null,       // the SUBACK: [{topic, granted}] (granted null: refused)
    link: "connecting",  // connecting connected subscribed backoff stopped
    linkDetail: null,
    status: null,        // the table's `status`: online / offline
    state: null, eztrak: null, info: null, result: null, results: [],
    offsets: [],         // the table's clock less this screen's, per recent live state
    connects: 0,         // accepted CONNACKs: 1 + the reconnects
    renders: 0,
  });
  const lastSeq = {};

  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k.startsWith("data-")) e.setAttribute(k, v);
      else e[k] = v;
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // -- messages ---------------------------------------------------------------------------

  function onMessage(topic, bytes, meta) {
    const text = new TextDecoder().decode(bytes);
    sb.received.push({ n: sb.received.length ? sb.received[sb.received.length - 1].n + 1 : 0,
      topic, payload: text, qos: meta.qos, retain: meta.retain, at: Date.now() });
    if (!keepAll && sb.received.length > KEPT) sb.received.splice(0, sb.received.length - KEPT);
    const suffix = topic.slice(base.length + 1);
    if (suffix === "status") {
      sb.status = text.replace(/^"|"$/g, "");  // tables before issue 14 sent "online" quoted
      render();
      return;
    }
    let payload;
    try { payload = JSON.parse(text); } catch (err) { return; }
    // De-duplicate by seq (docs/mqtt.md): an older or repeated message changes nothing.
    if (typeof payload.seq === "number") {
      if (lastSeq[suffix] !== undefined && payload.seq <= lastSeq[suffix]) return;
      lastSeq[suffix] = payload.seq;
    }
    if (suffix === "state") onState(payload, meta.retain);
    else if (suffix === "display/eztrak") sb.eztrak = payload;
    else if (suffix === "info") sb.info = payload;
    else if (suffix === "round/result") {
      sb.result = payload;
      sb.results.push(payload);
      if (sb.results.length > 50) sb.results.shift();
    }
    render();
  }

  function onState(state, retained) {
    // The bet timer (R28) counts down to the table's `bets_close_at`, read on the table's
    // clock: a live state's `ts` (its record's time) says how far this screen's clock is from
    // it, less the delivery time; the largest of the recent ones is the least delayed.
    if (!retained && state.ts) {
      sb.offsets.push(tsMillis(state.ts) - Date.now());
      if (sb.offsets.length > 20) sb.offsets.shift();
    }
    sb.state = state;
  }

  function tableNow() {
    return Date.now() + (sb.offsets.length ? Math.max(...sb.offsets) : 0);
  }

  function onLink(state, detail) {
    sb.link = state;
    sb.linkDetail = detail;
    if (state === "connected") {
      sb.connects++;
      for (const k of Object.keys(lastSeq)) delete lastSeq[k];  // the retained ones come again
    }
    if (state === "subscribed") sb.granted = detail;
    render();
  }

  // -- drawing ----------------------------------------------------------------------------

  function card(code) {
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    return el("span", { class: `card suit-${suit}`, "data-card": code }, rank + (SUITS[suit] || suit));
  }

  function baccaratTotal(cards) {
    let sum = 0;
    for (const c of cards) sum += c[0] === "A" ? 1 : "23456789".includes(c[0]) ? Number(c[0]) : 0;
    return sum % 10;
  }

  function cards(target, list) {
    const box = $(target);
    box.replaceChildren(...(list || []).map(card));
  }

  /** Lay road columns (true length) on a grid of `rows` rows: each column starts one grid
   * column right of the last one's start, at the top; a column longer than the grid, or that
   * meets a cell already there, turns right along its last row (the "dragon tail"). Returns
   * [{cell, c, r, x, y}]: c, r the column and row in the data; x, y the place on the grid. */
  function layout(columns, rows) {
    const taken = new Set();
    const placed = [];
    let start = -1;
    columns.forEach((column, c) => {
      let x = start + 1;
      while (taken.has(`${x},0`)) x++;
      start = x;
      let y = 0, tail = false;
      column.forEach((cell, r) => {
        if (r > 0) {
          if (!tail && y + 1 < rows && !taken.has(`${x},${y + 1}`)) y++;
          else { x++; tail = true; }
        }
        taken.add(`${x},${y}`);
        placed.push({ cell, c, r, x, y });
      });
    });
    return placed;
  }

  /** Draw placed cells on road `id`: at least as many grid columns as the box shows, and when
   * the road is longer than that, scrolled so that its newest columns are in view. */
  function drawRoad(id, placed, make) {
    const box = $(id);
    const cell = parseFloat(getComputedStyle(box).getPropertyValue("--cell")) || 26;
    const fits = Math.max(1, Math.floor(box.clientWidth / cell));
    const width = Math.max(fits, ...placed.map((p) => p.x + 1));
    box.style.gridTemplateColumns = `repeat(${width}, var(--cell))`;
    box.replaceChildren(...placed.map((p) => {
      const e = make(p.cell);
      e.setAttribute("data-col", p.c);
      e.setAttribute("data-row", p.r);
      e.style.gridColumn = String(p.x + 1);
      e.style.gridRow = String(p.y + 1);
      return e;
    }));
    box.scrollLeft = Math.max(0, box.scrollWidth - box.clientWidth);
  }

  function drawRoads(roads) {
    const bead = (roads.bead_plate || []).flatMap((col, c) =>
      col.map((cell, r) => ({ cell, c, r, x: c, y: r })));
    drawRoad("bead-plate", bead, (v) => el("span", { class: `bead v-${v}`, "data-v": v }, v));
    drawRoad("big-road", layout(roads.big_road || [], ROWS), (cell) => {
      const e = el("span", { class: `br v-${cell.winner}`, "data-v": cell.winner,
        "data-ties": cell.ties, "data-natural": cell.natural ? "1" : "0" });
      if (cell.natural) e.append(el("i", { class: "nat" }));
      if (cell.ties) e.append(el("i", { class: "tie" }, cell.ties > 1 ? cell.ties : ""));
      return e;
    });
    for (const [id, key, cls] of [["big-eye-boy", "big_eye_boy", "eye"],
      ["small-road", "small_road", "dot"], ["cockroach-pig", "cockroach_pig", "slash"]]) {
      drawRoad(id, layout(roads[key] || [], ROWS), (v) => el("span", { class: `${cls} c-${v}`, "data-v": v }));
    }
  }

  function drawStats(z) {
    const body = $("stats").tBodies[0];
    const rows = [["hands", "Hands"], ...STATS].map(([key, label]) => {
      const tr = el("tr", { "data-stat": key });
      tr.append(el("th", {}, label));
      for (const [block, which] of [[z.stats, "cur"], [z.previous, "prev"]]) {
        const v = block ? block[key] : null;
        const count = v === null || v === undefined ? "" : key === "hands" ? v : v.count;
        const pct = v && key !== "hands" ? `${v.pct}%` : "";
        tr.append(el("td", { class: `count ${which}` }, count), el("td", { class: `pct ${which}` }, pct));
      }
      return tr;
    });
    body.replaceChildren(...rows);
    $("stats").classList.toggle("no-previous", !z.previous);
  }

  function drawTimer() {
    const box = $("bet-timer");
    const st = sb.state;
    const posted = sb.info && sb.info.posted;
    // The timer's length: the EZTRAK board's, else what `info` posts (absent: no timer).
    const length = (sb.eztrak && sb.eztrak.bet_timer) || (posted && posted.bet_timer) || 0;
    if (!length) { box.dataset.state = "none"; box.textContent = ""; return; }
    if (st && st.phase === "betting" && st.bets_close_at) {
      const left = Math.max(0, Math.ceil((tsMillis(st.bets_close_at) - tableNow()) / 1000));
      box.dataset.state = "running";
      box.dataset.left = left;
      box.textContent = `Bets close in ${left} s`;
    } else if (st && st.phase !== "betting") {
      box.dataset.state = "closed";
      box.textContent = "No more bets";
    } else {
      box.dataset.state = "idle";
      box.textContent = `Bet timer ${length} s`;
    }
  }

  function drawBaccarat() {
    const z = sb.eztrak, st = sb.state, res = sb.result;
    if (z) {
      $("shoe").textContent = z.shoe;
      $("hands").textContent = z.hands;
      const lim = z.limits || {};
      const keys = Object.keys(lim);
      $("limits").textContent = keys.length === 2 && lim.min && lim.max
        ? `Limits ${lim.min}\u2013${lim.max}`
        : keys.map((k) => `${k} ${lim[k]}`).join(" \u00b7 ");
      $("limits").dataset.from = "display/eztrak";
      drawStats(z);
      drawRoads(z.roads || {});
    }
    if (st) {
      const now = st.cards || { player: [], banker: [] };
      cards("now-player", now.player);
      cards("now-banker", now.banker);
      $("now-player-total").textContent = now.player.length ? baccaratTotal(now.player) : "";
      $("now-banker-total").textContent = now.banker.length ? baccaratTotal(now.banker) : "";
      $("phase").textContent = st.phase === "betting" ? "place your bets" : "no more bets";
      $("phase").dataset.phase = st.phase;
      const pd = st.player_dealer;
      $("bank").textContent = pd
        ? `Player-dealer seat ${pd.seat}, bank ${pd.bank} (hand ${pd.turn} of 2)`
        : st.bank_offer_seat ? `Bank offered to seat ${st.bank_offer_seat}` : "No bank posted";
    }
    if (res) {
      const o = res.outcome;
      $("last").dataset.round = res.round;
      if (res.void || !o) {
        $("last-winner").textContent = `round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`;
        $("last-winner").dataset.winner = "void";
        for (const side of ["player", "banker"]) { cards(`last-${side}`, []); $(`last-${side}-total`).textContent = ""; }
      } else {
        const tags = [o.natural ? "natural" : "", o.dragon7 ? "Dragon 7" : "", o.panda8 ? "Panda 8" : ""];
        $("last-winner").textContent = `round ${res.round}: ${o.winner} wins ${tags.filter(Boolean).join(", ")}`.trim();
        $("last-winner").dataset.winner = o.winner;
        for (const side of ["player", "banker"]) {
          cards(`last-${side}`, o[side].cards);
          $(`last-${side}-total`).textContent = o[side].total;
        }
      }
    }
  }

  // The side bets of each game, as their spots are named in `round/result.settlements`.
  const SIDE_BETS = {
    dragon7: "Dragon 7", panda8: "Panda 8", "pair-plus": "Pair Plus",
    "six-card-bonus": "6 Card Bonus", fortune: "Fortune", envy: "Envy", trips: "Trips",
    "bad-beat": "Bad Beat", "red-flex": "Red Flex", buster: "Buster Blackjack",
    "match-dealer": "Match the Dealer",
  };

  /** Another game than baccarat: what its `state` says of the table, and the side-bet hits of
   * the rounds the page saw (`round/result`), newest first. */
  function drawOther() {
    const st = sb.state;
    const facts = [];
    if (st) {
      facts.push(["Round", st.round], ["Phase", st.phase]);
      const pd = st.player_dealer;
      if (pd) {
        const bank = pd.bank ? `, bank ${pd.bank}` : "";
        const turn = pd.turn ? ` (hand ${pd.turn} of 2)` : "";
        facts.push(["Player-dealer", `seat ${pd.seat}${bank}${turn}`]);
      } else if ("player_dealer" in st) facts.push(["Player-dealer", "no bank posted"]);
      if (st.bank_offer_seat) facts.push(["Bank offered to", `seat ${st.bank_offer_seat}`]);
      if (st.button_seat) facts.push(["Button", `seat ${st.button_seat}`]);
      if (st.total_action) facts.push(["Total action", st.total_action]);
    }
    $("other-facts").replaceChildren(...facts.flatMap(([k, v]) =>
      [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
    const hits = [];
    for (const r of sb.results.slice().reverse()) {
      for (const s of r.settlements || []) {
        if (SIDE_BETS[s.spot] && (s.status === "win" || s.status === "partial")) {
          hits.push(el("li", { "data-round": r.round, "data-seat": s.seat, "data-spot": s.spot,
            "data-net": s.net }, `Round ${r.round}: seat ${s.seat} ${SIDE_BETS[s.spot]} +${s.net}`));
        }
      }
    }
    $("hits").replaceChildren(...hits.slice(0, 12));
  }

  // -- what the table posts (`info.posted`) ------------------------------------------------

  const WAGERS = { ...SIDE_BETS, blind: "Blind", base: "Base", ante: "Ante", play: "Play",
    player: "Player", banker: "Banker", tie: "Tie", insurance: "Insurance" };
  const STRUCTURES = { "fixed-limit": "Fixed limit", "spread-limit": "Spread limit",
    "pot-limit": "Pot limit", "no-limit": "No limit" };
  const range = (low, high) => `${low}\u2013${high}`;

  /** A pay table's category id as the layout reads it: "red-8-or-more" "8 or more red cards",
   * "cards-3" "3-card bust", "seven-card-straight-flush-joker" "7-card straight flush (joker)". */
  function handName(hand) {
    let m = /^red-(\d)(-or-more)?$/.exec(hand);
    if (m) return `${m[1]}${m[2] ? " or more" : ""} red cards`;
    m = /^cards-(\d)(-or-more)?$/.exec(hand);
    if (m) return m[2] ? `${m[1]} or more cards bust` : `${m[1]}-card bust`;
    let text = hand.replace(/-joker$/, " (joker)").replace(/-royal-match$/, " + royal match")
      .replace(/^five-aces$/, "5 aces").replace(/-/g, " ").replace(/^seven card /, "7-card ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function stakesText(b) {
    const name = STRUCTURES[b.structure] || b.structure;
    if (!b.stakes) return name;
    const late = b.late_stakes ? ` / ${range(...b.late_stakes)}` : "";
    return `${name} ${range(...b.stakes)}${late}`;
  }

  /** The header's limits at another game than baccarat: a banked game's table limits, a poker
   * table's structure and stakes, a Chinese Poker point. */
  function limitsText(p) {
    if (p.limits) return `Limits ${range(p.limits.min, p.limits.max)}`;
    if (p.betting) return stakesText(p.betting);
    if (p.points) return `Point ${p.points.point}`;
    return "";
  }

  function postedFacts(p) {
    const facts = [];
    if (p.limits) {
      facts.push(["Table limits", range(p.limits.min, p.limits.max)]);
      for (const [spot, lim] of Object.entries(p.limits.spots || {})) {
        facts.push([`${WAGERS[spot] || spot} limits`, range(lim.min, lim.max)]);
      }
    }
    const b = p.betting;
    if (b) {
      facts.push(["Betting", stakesText(b)], ["Blinds", b.blinds.join(" / ")]);
      if (b.kill !== "none") facts.push(["Kill", `${b.kill} kill`]);
      if (b.buy_in) facts.push(["Buy-in", `${b.buy_in} minimum`]);
      for (const g of b.games || []) {
        facts.push([gameName(g.game), `${stakesText(g)}, blinds ${g.blinds.join(" / ")}`]);
      }
    }
    if (p.points) {
      facts.push(["Point", p.points.point], ["Buy-in", `${p.points.buy_in} minimum`],
        ["Table limit", range(p.points.table_limit.min, p.points.table_limit.max)]);
    }
    if (p.bet_timer) facts.push(["Bet timer", `${p.bet_timer} s`]);
    return facts;
  }

  function paytable(t) {
    const box = el("div", { class: "paytable-box", "data-paytable": t.name, "data-wager": t.wager });
    box.append(el("h3", {}, `${WAGERS[t.wager] || t.wager} (${t.name})`));
    const table = el("table", { class: "paytable" });
    const envy = Object.fromEntries((t.envy || []).map((e) => [e.hand, e.amount]));
    for (const row of t.pays) {
      const tr = el("tr", { "data-hand": row.hand });
      tr.append(el("td", { class: "hand" }, handName(row.hand)), el("td", { class: "pay" }, row.pays));
      if (t.envy) tr.append(el("td", { class: "envy" }, envy[row.hand] ? `Envy ${envy[row.hand]}` : ""));
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  /** The pays the rules fix (baccarat's spots, a pure 21.5, insurance) as one more table. */
  function fixedPays(pays) {
    const box = el("div", { class: "paytable-box", "data-paytable": "fixed" });
    box.append(el("h3", {}, "Pays"));
    const table = el("table", { class: "paytable" });
    for (const row of pays) {
      const tr = el("tr", { "data-hand": row.wager });
      tr.append(el("td", { class: "hand" }, `${WAGERS[row.wager] || row.wager}: ${row.hand}`),
        el("td", { class: "pay" }, row.pays));
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  /** The collection schedule as a card room posts it: a banked game's option (table limit, the
   * player-dealer's fee by total action, the player's fee) or a poker table's (the fee by the
   * number of players, per hand or per half hour). Each row [what, fee]; a head row has no fee. */
  function collectionRows(c) {
    const rows = [];
    if (c.per) {  // a poker table (R44)
      rows.push([c.per === "hand" ? "Per hand, by players dealt in" : "Per half hour, each seated player"]);
      for (const r of c.rates) {
        const who = r.max_players === null ? `${r.min_players} or more`
          : r.max_players === r.min_players ? `${r.min_players}` : `${r.min_players}\u2013${r.max_players}`;
        rows.push([`${who} players`, r.fee]);
      }
      if (c.modified_fee) rows.push(["Hand ended before the flop", c.modified_fee]);
      if (c.button_fee) rows.push(["The buttons' holder", c.button_fee]);
      if (c.table_limits.length) rows.push([`For a ${c.table_limits.map((l) => range(l.lower, l.higher)).join(" or ")} table`]);
      if (c.buy_in) rows.push(["Buy-in", c.buy_in]);
      return rows;
    }
    rows.push([`Table limit ${range(c.table_min, c.table_max)}; player-dealer, by total action`]);
    for (const b of c.brackets) rows.push([`from ${b.min_action}`, b.fee]);
    const spots = c.player_fee_spots.length
      ? ` (${c.player_fee_spots.map((s) => WAGERS[s] || s).join(", ")} only)` : "";
    if (c.player_fee_brackets.length) {
      rows.push([`Player, by the wager${spots}`]);
      for (const b of c.player_fee_brackets) rows.push([`from ${b.min_action}`, b.fee]);
    } else if (Number(c.player_fee) > 0) {
      rows.push([`Player, per ${c.player_fee_per}${spots}`, c.player_fee]);
    } else {
      rows.push(["Player", "none"]);
    }
    return rows;
  }

  /** `info.posted` in the posted panel, which goes into the view of the table's game. */
  function drawPosted(view) {
    const panel = $("posted-panel");
    const p = sb.info && sb.info.posted;
    panel.hidden = !p || !view;
    if (!p || !view) return;
    if (panel.parentNode !== view) view.append(panel);
    $("posted-facts").replaceChildren(...postedFacts(p).flatMap(([k, v]) =>
      [el("dt", {}, k), el("dd", { "data-posted": k }, v)]));
    const fixed = p.pays && p.pays.length ? [fixedPays(p.pays)] : [];
    $("paytables").replaceChildren(...fixed, ...(p.paytables || []).map(paytable));
    const c = p.collection;
    const options = c.per ? c.options : [c.option];
    $("collection-title").textContent = `Collection: option${options.length > 1 ? "s" : ""} ${options.join(" and ")}`;
    $("collection").tBodies[0].replaceChildren(...collectionRows(c).map(([what, fee]) => {
      const tr = el("tr");
      if (fee === undefined) tr.append(el("td", { class: "head", colSpan: 2 }, what));
      else tr.append(el("td", {}, what), el("td", { class: "fee" }, fee));
      return tr;
    }));
  }

  function drawBanner() {
    const b = $("banner");
    let text = "";
    if (sb.link !== "subscribed" && sb.link !== "connected") text = "Connecting to the table\u2026";
    else if (sb.status === "offline") text = "Table offline";
    else if (sb.state && sb.state.held) text = `Round held: ${sb.state.held}`;
    b.hidden = !text;
    b.textContent = text;
  }

  function render() {
    sb.renders++;
    const st = sb.state;
    const game = st ? st.game : sb.eztrak ? "ez-baccarat-panda8" : sb.info ? sb.info.game : null;
    $("table-name").textContent = st ? st.table : sb.eztrak ? sb.eztrak.table : base.split("/").pop();
    $("game-name").textContent = game ? gameName(game) : "";
    if (st) $("round").textContent = st.round;
    const ts = $("table-status");
    ts.dataset.status = sb.status || "unknown";
    ts.textContent = `table ${sb.status || "?"}`;
    const ls = $("link-status");
    ls.dataset.link = sb.link;
    ls.textContent = sb.link === "subscribed" ? "live" : sb.link;
    const baccarat = game === "ez-baccarat-panda8";
    document.body.dataset.game = baccarat ? "baccarat" : game ? "other" : "";
    $("baccarat").hidden = !baccarat;
    $("other").hidden = baccarat || !game;
    if (baccarat) drawBaccarat();
    else if (game) drawOther();
    const posted = sb.info && sb.info.posted;
    if (!baccarat || !sb.eztrak) {  // the EZTRAK board's limits first at baccarat
      $("limits").textContent = posted ? limitsText(posted) : "";
      $("limits").dataset.from = posted ? "info" : "";
    }
    drawPosted(baccarat ? $("baccarat") : game ? $("other") : null);
    drawTimer();
    drawBanner();
  }

  // -- start ------------------------------------------------------------------------------

  if (!/^[^#+]+$/.test(base)) {
    $("help").hidden = false;
    return;
  }
  sb.layout = layout;  // for a test of the dragon tail
  document.title = `Scoreboard ${base.split("/").pop()}`;
  render();
  setInterval(drawTimer, 250);
  const subscriptions = sb.topics.map((topic) => ({ topic, qos: 1 }));
  sb.client = TablectlPage.connect(link, "scoreboard", subscriptions, onMessage, onLink);
})();
