/* A small MQTT 3.1.1 client over WebSocket, for pages that only read (docs/scoreboard.md).
 *
 * No library, no build step: one classic script that defines `MqttWsClient` on `window`.
 * It speaks the subset a read-only page needs, as OASIS MQTT 3.1.1 defines it:
 *
 *   CONNECT (clean session, optional user name and password, keep alive)  -> CONNACK
 *   SUBSCRIBE (every subscription in one packet, at most QoS 1)            -> SUBACK
 *   PUBLISH received at QoS 0 or 1; QoS 1 is answered with PUBACK (the broker never sends
 *     QoS 2 here: a subscription's QoS caps what it delivers, and ours is at most 1)
 *   PINGREQ every `keepalive` seconds the client has sent nothing           -> PINGRESP
 *   DISCONNECT on stop()
 *
 * The WebSocket carries MQTT's bytes as binary frames with the subprotocol "mqtt" (MQTT 3.1.1
 * section 6); a frame may hold part of a packet or several packets, so incoming bytes are
 * buffered and cut into packets by their remaining length. It never publishes.
 *
 * When the link drops (or the broker refuses or goes silent) it reconnects by itself after a
 * capped, jittered backoff: the ceiling starts at 0.5 s and doubles up to 30 s, each wait drawn
 * between half the ceiling and the ceiling ("equal jitter", as tablectl_base/backoff.py), so the
 * screens of a floor do not all hit a restarted broker at the same instant. A CONNACK that
 * accepts the connection resets the ceiling. On every connect the subscriptions are sent again
 * (clean session), and the broker sends the retained messages again.
 *
 *   const client = new MqttWsClient({
 *     url: "ws://broker:9001/mqtt", clientId: "scoreboard-x", username: "u", password: "p",
 *     keepalive: 30, subscriptions: [{topic: "a/b", qos: 1}],
 *     onMessage: (topic, bytes, {qos, retain, dup}) => {},   // bytes: Uint8Array
 *     onState: (state, detail) => {},  // "connecting" "connected" "subscribed" "backoff" "stopped"
 *   });
 *   client.start();  ...  client.stop();
 */
(function (global) {
  "use strict";

  const CONNECT = 1, CONNACK = 2, PUBLISH = 3, PUBACK = 4, PUBREC = 5, PUBREL = 6;
  const SUBSCRIBE = 8, SUBACK = 9, PINGREQ = 12, PINGRESP = 13, DISCONNECT = 14;
  const CONNACK_REASONS = {
    1: "unacceptable protocol version", 2: "client id rejected", 3: "server unavailable",
    4: "bad user name or password", 5: "not authorised",
  };
  const utf8 = new TextEncoder();

  /** MQTT's variable-length "remaining length": 7 bits a byte, high bit = more follows. */
  function encodeLength(n) {
    const out = [];
    do {
      let byte = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      out.push(byte);
    } while (n > 0);
    return out;
  }

  /** A UTF-8 string field: two length bytes, then the bytes. */
  function str(s) {
    const b = utf8.encode(s);
    return [b.length >> 8, b.length & 0xff, ...b];
  }

  /** One packet: fixed header (type << 4 | flags, remaining length) and body. */
  function packet(type, flags, body) {
    return new Uint8Array([(type << 4) | flags, ...encodeLength(body.length), ...body]);
  }

  class MqttWsClient {
    constructor(opts) {
      this.opts = Object.assign({ keepalive: 30, subscriptions: [], onMessage() {}, onState() {} }, opts);
      this.ws = null;
      this.buffer = new Uint8Array(0);
      this.ceiling = 0.5;       // seconds: the backoff ceiling for the next wait
      this.nextId = 1;          // packet identifier of our next SUBSCRIBE
      this.stopped = true;
      this.retryTimer = null;
      this.pingTimer = null;
      this.lastSent = 0;        // ms, performance.now() of the last packet sent
      this.lastHeard = 0;       // ms, of the last packet received
      this.connected = false;
      this.pings = 0;           // PINGREQs sent (for a test; the page shows nothing of it)
      this.random = this.opts.random || Math.random;  // injectable for a test
    }

    start() {
      this.stopped = false;
      this._open();
    }

    stop() {
      this.stopped = true;
      clearTimeout(this.retryTimer);
      clearInterval(this.pingTimer);
      if (this.ws) {
        if (this.connected) this._send(packet(DISCONNECT, 0, []));
        this.ws.close();
      }
      this.opts.onState("stopped", null);
    }

    _open() {
      this.buffer = new Uint8Array(0);
      this.connected = false;
      this.opts.onState("connecting", this.opts.url);
      let ws;
      try {
        ws = new WebSocket(this.opts.url, ["mqtt"]);
      } catch (err) {
        this._retry(String(err));
        return;
      }
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      ws.onopen = () => this._sendConnect();
      ws.onmessage = (ev) => this._receive(new Uint8Array(ev.data));
      ws.onclose = (ev) => {
        if (this.ws === ws) this._retry(`closed (${ev.code})`);
      };
      ws.onerror = () => {};  // onclose follows and says it
    }

    /** Close this link and try again after the jittered backoff (unless stopped). */
    _retry(why) {
      clearInterval(this.pingTimer);
      const ws = this.ws;
      this.ws = null;
      this.connected = false;
      if (ws && ws.readyState <= 1) ws.close();
      if (this.stopped) return;
      const wait = this.ceiling * (0.5 + 0.5 * this.random());
      this.ceiling = Math.min(this.ceiling * 2, 30);
      this.opts.onState("backoff", { why, seconds: wait });
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this._open(), wait * 1000);
    }

    _send(bytes) {
      if (!this.ws || this.ws.readyState !== 1) return;  // closing: nothing more goes out
      this.ws.send(bytes);
      this.lastSent = performance.now();
    }

    _sendConnect() {
      const o = this.opts;
      let flags = 0x02;  // clean session: a page keeps no state on the broker
      const payload = [...str(o.clientId)];
      if (o.username) { flags |= 0x80; payload.push(...str(o.username)); }
      if (o.username && o.password) { flags |= 0x40; payload.push(...str(o.password)); }
      const body = [...str("MQTT"), 4, flags, o.keepalive >> 8, o.keepalive & 0xff, ...payload];
      this._send(packet(CONNECT, 0, body));
      this.lastHeard = performance.now();
    }

    _subscribe() {
      const id = this.nextId;
      this.nextId = (this.nextId % 65535) + 1;
      const body = [id >> 8, id & 0xff];
      for (const s of this.opts.subscriptions) body.push(...str(s.topic), Math.min(s.qos || 0, 1));
      this._send(packet(SUBSCRIBE, 0x2, body));  // SUBSCRIBE's fixed-header flags are 0010
    }

    /** Keep alive: a PINGREQ when we have sent nothing for `keepalive` s; a broker silent for
     * 1.5 times that (it answers every PINGREQ) is taken as a dead link. */
    _startPings() {
      const k = this.opts.keepalive * 1000;
      clearInterval(this.pingTimer);
      if (!k) return;
      this.pingTimer = setInterval(() => {
        const now = performance.now();
        if (now - this.lastHeard > 1.5 * k) { this._retry("keepalive: broker silent"); return; }
        if (now - this.lastSent >= k) { this._send(packet(PINGREQ, 0, [])); this.pings++; }
      }, Math.min(1000, k / 4));
    }

    _receive(chunk) {
      const joined = new Uint8Array(this.buffer.length + chunk.length);
      joined.set(this.buffer);
      joined.set(chunk, this.buffer.length);
      this.buffer = joined;
      this.lastHeard = performance.now();
      for (;;) {  // cut whole packets off the front
        let length = 0, mult = 1, i = 1;
        for (;; i++) {
          if (i >= this.buffer.length) return;  // the length is not all here yet
          length += (this.buffer[i] & 0x7f) * mult;
          mult *= 128;
          if (!(this.buffer[i] & 0x80)) break;
          if (i === 4) { this._retry("malformed remaining length"); return; }
        }
        const start = i + 1;
        if (this.buffer.length < start + length) return;  // the body is not all here yet
        const header = this.buffer[0];
        const body = this.buffer.subarray(start, start + length);
        this.buffer = this.buffer.slice(start + length);
        this._handle(header >> 4, header & 0x0f, body);
        if (!this.ws) return;  // the packet closed the link
      }
    }

    _handle(type, flags, body) {
      switch (type) {
        case CONNACK: {
          const code = body[1];
          if (code !== 0) { this._retry(`refused: ${CONNACK_REASONS[code] || code}`); return; }
          this.connected = true;
          this.ceiling = 0.5;
          this.opts.onState("connected", null);
          this._startPings();
          if (this.opts.subscriptions.length) this._subscribe();
          return;
        }
        case SUBACK: {
          const granted = Array.from(body.subarray(2));  // 0x80: that subscription refused
          this.opts.onState("subscribed", this.opts.subscriptions.map((s, n) => ({
            topic: s.topic, granted: granted[n] === 0x80 ? null : granted[n] })));
          return;
        }
        case PUBLISH: {
          const qos = (flags >> 1) & 3;
          const topicLength = (body[0] << 8) | body[1];
          const topic = new TextDecoder().decode(body.subarray(2, 2 + topicLength));
          let at = 2 + topicLength;
          if (qos > 0) {
            const id = [body[at], body[at + 1]];
            at += 2;
            // QoS 1: acknowledge. (QoS 2 cannot come: every subscription asks for at most 1.)
            this._send(packet(qos === 1 ? PUBACK : PUBREC, 0, id));
          }
          const payload = body.slice(at);
          this.opts.onMessage(topic, payload, { qos, retain: !!(flags & 1), dup: !!(flags & 8) });
          return;
        }
        case PUBREL:  // only after a PUBREC, i.e. never here; answered for completeness
          this._send(packet(7, 0, [body[0], body[1]]));  // PUBCOMP
          return;
        case PINGRESP:
          return;
        default:
          this._retry(`unexpected packet type ${type}`);
      }
    }
  }

  global.MqttWsClient = MqttWsClient;
})(window);
