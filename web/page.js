/* What the tablectl pages share (docs/scoreboard.md, docs/floor.md): each game's name as a
 * person reads it, the page's MQTT client set up from the page's own address, and whether a
 * table is alive.
 *
 * One classic script, loaded after mqtt-ws.js, that defines `TablectlPage` on `window`:
 *
 *   const link = TablectlPage.link();     // broker, keepalive, record=1, credentials
 *   const client = TablectlPage.connect(link, "scoreboard", subscriptions, onMessage, onState);
 *   TablectlPage.gameName("omaha-hi-lo")  // "Omaha hi-lo"; an unknown id as it is
 *   TablectlPage.tsMillis(state.ts)       // a payload's `ts` in ms since the epoch
 *
 * Liveness (docs/mqtt.md `status`, docs/floor.md): a table says `status`
 * `online` after every connect and again every `heartbeat_seconds` (its retained `info` says
 * how often; 5 by default). A table the page has not heard from for two of those is **stale**
 * (hung, stopped, its link cut: the broker's Last Will says `offline` only 1.5 keepalives
 * later, 9-15 s on the shipped broker); `offline` is the word itself (a clean stop, or the
 * Will). One tracker per table:
 *
 *   const live = TablectlPage.liveness();
 *   live.status(text, meta.retain)  // each message on <base>/status (the bare word; the quoted
 *                                   // form of older tables and an empty one read too)
 *   live.info(payload)              // each parsed `info`: takes `heartbeat_seconds`
 *   live.heard(meta.retain)         // optional: any other message from the table; only a live
 *                                   // one (retain false) counts as word from it
 *   live.link(up)                   // the page's own link: "subscribed" is up. While it is down
 *                                   // nothing turns stale; when it is back the clock restarts
 *   const s = live.check();         // what to show now (call it on a timer, e.g. every 0.5 s):
 *     s.state      "online" | "stale" | "offline" | "unknown" (no status yet, or cleared)
 *     s.word       the last status word, null before one
 *     s.ago        whole seconds since the table was last heard, null before it was
 *     s.staleAfter seconds without word after which it is stale (2 x heartbeat_seconds), null
 *                  when the table does not say its heartbeat (a table from before the heartbeat, or
 *                  `heartbeat_seconds = 0`): such a table is never stale, only offline
 *     s.text       "online", "offline", "?", or for a stale one "last heard 12 s ago"
 *
 * Every method takes an optional last argument `now` (ms, Date.now() by default) for a test.
 * A retained `status` counts as heard when it arrives: its age is unknown, so a table stopped
 * just before the page opened shows stale two intervals after the page subscribed, if the
 * broker's Will has not said offline by then. `TablectlPage.STALE_AFTER` is the 2.
 */
(function (global) {
  "use strict";

  const GAMES = {
    "ez-baccarat-panda8": "EZ Baccarat Panda 8",
    "three-card-poker-6cb": "Three Card Poker 6 Card Bonus",
    "fortune-pai-gow": "Fortune Pai Gow Poker",
    "ultimate-texas-holdem": "Ultimate Texas Hold'em",
    "pure-21.5-blackjack": "Pure 21.5 Blackjack",
    "pure-spanish-21.5": "Pure Spanish 21.5",
    "texas-holdem": "Texas Hold'em",
    "omaha": "Omaha",
    "omaha-hi-lo": "Omaha hi-lo",
    "crazy-pineapple-hi-lo": "Crazy Pineapple hi-lo",
    "seven-card-stud": "Seven Card Stud",
    "seven-card-stud-hi-lo": "Seven Card Stud hi-lo",
    "razz": "Razz",
    "five-card-stud": "Five Card Stud",
    "option-alley": "Option Alley",
    "five-card-draw": "Five Card Draw",
    "five-card-draw-hi-lo": "Five Card Draw hi-lo",
    "lowball": "Lowball",
    "dealers-choice": "Dealer's Choice",
    "chinese-poker": "Chinese Poker",
  };

  /** A game id as a person reads it (the README's names); an id this page does not know, as is. */
  function gameName(id) {
    return Object.prototype.hasOwnProperty.call(GAMES, id) ? GAMES[id] : id;
  }

  /** A tablectl timestamp ("2026-11-27T20:00:02.000000Z") in milliseconds since the epoch;
   * NaN for anything else. Its microseconds are cut to the milliseconds JavaScript reads. */
  function tsMillis(ts) {
    return typeof ts === "string" ? Date.parse(ts.replace(/(\.\d{3})\d*Z$/, "$1Z")) : NaN;
  }

  /** What the page's address says of its link: `broker` (else the WebSocket listener that served
   * the page, at /mqtt), `keepalive` (1 to 600 s, 30 when left out), `record=1` (keep every
   * message, for a test), and the user name and password, from the fragment (`#user=..&pass=..`,
   * never sent to a web server) or else the query. `params` is the query, for the page's own. */
  function link() {
    const params = new URLSearchParams(location.search);
    const secret = new URLSearchParams(location.hash.slice(1));
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return {
      params,
      brokerUrl: params.get("broker") || `${scheme}://${location.host}/mqtt`,
      keepAll: params.get("record") === "1",
      keepalive: Math.min(Math.max(Number(params.get("keepalive")) || 30, 1), 600),
      username: secret.get("user") || params.get("user") || undefined,
      password: secret.get("pass") || params.get("pass") || undefined,
    };
  }

  /** The page's MQTT client (a random client id after `name`), started; new credentials in the
   * fragment reload the page, since a fragment change alone reloads nothing. */
  function connect(pageLink, name, subscriptions, onMessage, onState) {
    const rand = new Uint32Array(1);
    crypto.getRandomValues(rand);
    const client = new global.MqttWsClient({
      url: pageLink.brokerUrl,
      clientId: `${name}-${rand[0].toString(36)}`,
      username: pageLink.username,
      password: pageLink.password,
      keepalive: pageLink.keepalive,
      subscriptions,
      onMessage,
      onState,
    });
    client.start();
    global.addEventListener("hashchange", () => location.reload());
    return client;
  }

  const STALE_AFTER = 2;  // heartbeats missed before a table is stale

  /** A table's liveness tracker (the API at the top of this file). */
  function liveness() {
    let word = null;        // "online" / "offline" / other text; null: none (or cleared)
    let heartbeat = null;   // seconds, from `info.heartbeat_seconds`
    let heardAt = null;     // ms: the last word from the table (or the page's link coming back)
    let linkUp = true;
    const clock = (now) => (typeof now === "number" ? now : Date.now());
    return {
      status(text, retained, now) {
        const bare = String(text === undefined || text === null ? "" : text)
          .trim().replace(/^"|"$/g, "");
        word = bare || null;
        heardAt = clock(now);
      },
      info(payload, now) {
        const every = payload && payload.heartbeat_seconds;
        heartbeat = Number.isFinite(every) && every > 0 ? every : null;
      },
      heard(retained, now) {
        if (!retained) heardAt = clock(now);
      },
      link(up, now) {
        if (up && !linkUp) heardAt = clock(now);  // the page was away: count from its return
        linkUp = !!up;
      },
      check(now) {
        const t = clock(now);
        const ago = heardAt === null ? null : Math.max(0, Math.floor((t - heardAt) / 1000));
        const staleAfter = heartbeat === null ? null : STALE_AFTER * heartbeat;
        let state = word === "online" ? "online" : word === "offline" ? "offline" : "unknown";
        if (state === "online" && staleAfter !== null && linkUp && heardAt !== null
            && t - heardAt > staleAfter * 1000) {
          state = "stale";
        }
        const text = state === "stale" ? `last heard ${ago} s ago`
          : state === "unknown" ? "?" : state;
        return { state, word, ago, staleAfter, text };
      },
    };
  }

  global.TablectlPage = { GAMES, gameName, tsMillis, link, connect, liveness, STALE_AFTER };
})(window);
