/*!
 * Parley visitor widget. Served verbatim (gzipped) at {base_url}/widget.js.
 * Embed: <script src="{base_url}/widget.js" data-key="pk_..." defer></script>
 * Plain ES2019: no framework, no imports, no build step. See docs/widget.md.
 */
(function () {
  'use strict';

  // A snippet pasted twice (or a tag manager re-injecting it) must not mount a second widget.
  if (window.__parleyWidget) return;
  window.__parleyWidget = true;

  // ------------------------------------------------------------------ settings

  var script = document.currentScript ||
    document.querySelector('script[data-key][src*="widget.js"]') ||
    document.querySelector('script[data-key]');
  var settings = window.ParleySettings || {};
  var KEY = attr('data-key') || settings.key;
  if (!KEY) {
    if (window.console) console.warn('[parley] widget.js needs a data-key attribute (or ParleySettings.key).');
    return;
  }
  var BASE = baseUrl();
  var API = BASE + '/widget/' + encodeURIComponent(KEY);
  var PREFIX = 'parley:' + KEY + ':';
  var MAX_CHARS = 4000;
  var COUNTER_FROM = 3600; // the character counter appears near the limit only
  var STREAM_IDLE_MS = 60000; // no byte (not even a heartbeat comment) for this long = dropped stream
  var RESEND_MS = 1500; // a stored but unanswered message is sent again once, after this pause
  var HIDDEN_PAUSE_MS = 120000; // heartbeats pause after the tab has been hidden this long
  var ROLES = { visitor: 1, assistant: 1, agent: 1, system: 1 };
  // An offline follow-up mail's link (docs/routing.md): its token rides in the page's fragment; it is
  // read once and taken out of the address bar, so a copied or bookmarked URL does not carry it.
  var CONTINUE = takeContinueToken();

  function takeContinueToken() {
    var m = /(?:^#|&)parley-continue=([\w.-]+)/.exec(location.hash || '');
    if (!m) return null;
    try {
      history.replaceState(null, '', location.pathname + location.search);
    } catch (e) { /* the token is still used, only the address bar keeps it */ }
    return m[1];
  }

  function attr(name) {
    var value = script && script.getAttribute(name);
    return value || undefined;
  }

  // The script's own URL minus its file name, so the service works under any path prefix.
  function baseUrl() {
    try {
      var u = new URL(script.src, location.href);
      return u.origin + u.pathname.replace(/\/[^/]*$/, '');
    } catch (e) {
      return location.origin;
    }
  }

  // ------------------------------------------------------------------ storage

  // Storage can be blocked (sandboxed iframes, strict privacy modes) and then throws on access:
  // fall back to memory, so the widget still works for this page view.
  var memory = {};
  var local = storage('localStorage');
  var session = storage('sessionStorage');

  function storage(name) {
    try {
      var s = window[name];
      s.setItem(PREFIX + 'probe', '1');
      s.removeItem(PREFIX + 'probe');
      return s;
    } catch (e) {
      return null;
    }
  }
  function load(s, key) {
    try {
      if (s) return s.getItem(PREFIX + key);
    } catch (e) { /* fall through to memory */ }
    return key in memory ? memory[key] : null;
  }
  function save(s, key, value) {
    try {
      if (s) {
        if (value == null) s.removeItem(PREFIX + key);
        else s.setItem(PREFIX + key, value);
        return;
      }
    } catch (e) { /* quota or blocked: keep it in memory */ }
    if (value == null) delete memory[key];
    else memory[key] = value;
  }

  function uuid() {
    var c = window.crypto;
    if (c && c.randomUUID) return c.randomUUID(); // secure contexts only
    var bytes = new Uint8Array(16);
    if (c && c.getRandomValues) c.getRandomValues(bytes);
    else for (var i = 0; i < 16; i++) bytes[i] = Math.random() * 256;
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join('');
  }

  // ------------------------------------------------------------------ language

  // The widget's own words. English lives here (JSON syntax: a unit test reads it); the other
  // catalogues are served beside this file, at {base}/widget/i18n/{code}.json, and loaded on demand,
  // so a visitor downloads one language only. A key missing from a catalogue falls back to English.
  // `launcher`, `title`, `subtitle` and `welcome` are the server's default texts: a chatbot that
  // kept them shows them in the visitor's language (see ownText).
  var EN = {
    "launcher": "Chat with us",
    "title": "Hi there \ud83d\udc4b",
    "subtitle": "We usually reply in a few minutes",
    "welcome": "Hi! How can I help you today?",
    "chat": "Chat",
    "more": "More options",
    "new_chat": "New chat",
    "close": "Close chat",
    "messages": "Messages",
    "typing": "Typing",
    "agent_typing": "{name} is typing\u2026",
    "suggested": "Suggested questions",
    "dismiss": "Dismiss",
    "human": "Talk to a human",
    "sign_in": "Please sign in to chat with us.",
    "identity_refused": "We could not confirm that you are signed in. Please sign in again to chat with us.",
    "powered_by": "Powered by {name}",
    "placeholder": "Write a message\u2026",
    "send": "Send message",
    "message": "Message",
    "before_start": "Before we start",
    "start_chat": "Start chat",
    "required": "Please fill in this field.",
    "agent": "Agent",
    "sources": "Sources:",
    "source": "Source",
    "out_of_stock": "Out of stock",
    "view": "View",
    "view_item": "View {name}",
    "buy": "Buy",
    "buy_item": "Buy {name}",
    "unread": "{label} ({n} unread)",
    "with_person": "You are chatting with a person",
    "waiting": "Waiting for an agent",
    "waiting_min": "Waiting for an agent - about {n} min",
    "waiting_soon": "Waiting for an agent - any moment now",
    "queue_position": "Waiting for an agent - you are number {n} in line",
    "email_label": "Your email",
    "email_send": "Email me",
    "email_saved": "Thanks! We'll email you at {email} if you have left when we answer.",
    "sent_to_agent": "Your message was sent. An agent will reply here.",
    "error": "Something went wrong ({status}). Please try again.",
    "retry_in": "Try again in {wait}.",
    "seconds": "{n} seconds",
    "minutes": "{n} minutes",
    "hours": "{n} hours",
    "unreachable": "Could not reach the chat. Check your connection and try again.",
    "new_chat_failed": "Could not start a new chat. Check your connection and try again.",
    "not_sent": "The connection dropped and your message was not sent. Please try again.",
    "cut_off": "The connection dropped before the reply finished.",
    "no_answer": "The assistant could not answer just now. Please try again.",
    "feedback": "Was this answer helpful?",
    "helpful": "Helpful",
    "not_helpful": "Not helpful"
  };
  var CATALOGUES = ['ar', 'de', 'es', 'fr', 'ja', 'nl', 'pt', 'zh'];
  var RTL = ['ar', 'fa', 'he', 'ur'];
  var TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/; // a BCP 47 language tag, as the stream accepts it
  var words = EN;
  var lang = 'en'; // the catalogue in use

  function t(key, vars) {
    var text = typeof words[key] === 'string' ? words[key] : EN[key];
    return vars ? text.replace(/\{(\w+)\}/g, function (all, name) { return name in vars ? vars[name] : all; }) : text;
  }

  // A branding text left at its English default is the widget's own word, not the operator's.
  function ownText(value, key) {
    value = value == null ? '' : String(value);
    return value === EN[key] ? t(key) : value;
  }

  // What the visitor reads: the chatbot's `language` (an ISO 639-1 code), or with `auto` the browser's.
  function wantedLanguage(setting) {
    var tag = String(setting && setting !== 'auto' ? setting : navigator.language || 'en').replace(/_/g, '-');
    return TAG.test(tag) ? tag : 'en';
  }

  function catalogueOf(tag) {
    var code = tag.split('-')[0].toLowerCase();
    return CATALOGUES.indexOf(code) >= 0 ? code : 'en';
  }

  // Resolves to the catalogue, or null (English) when it cannot be had: never holds the widget back for long.
  function loadCatalogue(code) {
    if (code === 'en') return Promise.resolve(null);
    var ctrl = new AbortController();
    var timer = setTimeout(function () { ctrl.abort(); }, 8000);
    return fetch(BASE + '/widget/i18n/' + code + '.json', { credentials: 'omit', signal: ctrl.signal }).then(function (res) {
      return res.ok ? res.json() : null;
    }).catch(function () { return null; }).finally(function () { clearTimeout(timer); });
  }

  // ------------------------------------------------------------------ state

  var S = {
    visitor: load(local, 'visitor'),
    conv: load(local, 'conversation'),
    identity: null, // set through identify(), the attribute's token included
    identityRefused: false, // the server refused the token (422): not sent again
    restored: false, // restore() ran: from then on identify() recalls the conversation itself
    cfg: null,
    brand: {},
    locale: 'en', // the visitor's language tag, sent with each message so the AI answers in it
    ready: false,
    later: [], // Parley.* calls made before the config arrived
    open: false,
    order: [], // message records in display order
    byId: {}, // server message id -> record (merge key: one id renders once)
    cursor: 0, // highest id confirmed by an HTTP state read: the `after` of the next catch-up
    quiet: true, // no sound or badge while the transcript is being restored
    status: null,
    handoff: null,
    waitUntil: 0,
    queue: [], // visitor messages waiting for the current stream to finish
    busy: false,
    cur: null, // the stream in progress
    syncing: null,
    resync: false,
    socket: null,
    typingSent: 0, // when the visitor's last `typing` went out (0: none since the field was emptied)
    socketConv: null,
    lastSeq: null,
    poll: 15,
    hbTimer: 0,
    hbBusy: false,
    hiddenAt: 0,
    unread: 0,
    audio: null,
    tick: 0
  };
  var freshVisitor = !S.visitor;
  if (freshVisitor) {
    S.visitor = uuid();
    save(local, 'visitor', S.visitor);
  }

  var ui = {}; // elements, filled by mount()

  function whenReady(fn) {
    if (S.ready) fn();
    else S.later.push(fn);
  }

  window.Parley = {
    open: function () { whenReady(function () { setOpen(true, true); }); },
    close: function () { whenReady(function () { setOpen(false, false); }); },
    toggle: function () { whenReady(function () { setOpen(!S.open, true); }); },
    // Identity token (JWT from the customer's server), sent with every visitor message from now on.
    identify: function (token) {
      whenReady(function () { signIn(token ? String(token) : null); });
    },
    // Forget this visitor on this device (use on the site's logout): new visitor id, no transcript.
    reset: function () { whenReady(forgetVisitor); }
  };

  var firstToken = attr('data-identity') || settings.identity;
  if (firstToken) window.Parley.identify(firstToken);

  // ------------------------------------------------------------------ HTTP

  function noop() {}

  function parse(text) {
    try {
      return text ? JSON.parse(text) : null;
    } catch (e) {
      return null;
    }
  }

  // JSON in, {ok, status, headers, data} out. Stateless: no cookies (credentials omitted).
  function request(method, path, body, headers) {
    var ctrl = new AbortController();
    var timer = setTimeout(function () { ctrl.abort(); }, 20000);
    var init = { method: method, headers: Object.assign({ Accept: 'application/json' }, headers), credentials: 'omit', signal: ctrl.signal };
    if (body) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(API + path, init).then(function (res) {
      return res.text().then(function (text) {
        return { ok: res.ok, status: res.status, headers: res.headers, data: parse(text) };
      });
    }).finally(function () { clearTimeout(timer); });
  }

  // The state reads send the visitor id (the key to the transcript) in a header: a URL ends up in logs.
  function visitorHeader() {
    return { 'X-Visitor-Id': S.visitor };
  }

  function q(name, value) {
    return name + '=' + encodeURIComponent(value);
  }

  function errorText(r) {
    var msg = (r.data && r.data.message) || t('error', { status: r.status });
    if (r.status === 429) {
      // Readable cross-origin only when the server exposes it (Access-Control-Expose-Headers).
      // Beyond two days (a monthly allowance) the server's message already names the date.
      var secs = parseInt(r.headers.get('Retry-After'), 10);
      var wait = secs < 90 ? t('seconds', { n: secs }) : secs < 5400 ? t('minutes', { n: Math.ceil(secs / 60) }) : t('hours', { n: Math.ceil(secs / 3600) });
      if (secs > 0 && secs < 172800) msg += ' ' + t('retry_in', { wait: wait });
    }
    return msg;
  }

  function clampPoll(value) {
    var n = Number(value);
    return n >= 5 ? Math.min(n, 300) : 15;
  }

  function truncate(value, max) {
    value = value == null ? '' : String(value);
    return value.length > max ? value.slice(0, max) : value;
  }

  // ------------------------------------------------------------------ start

  function start() {
    var attempts = 0;
    // Most chatbots follow the browser's language: its catalogue is fetched beside the config.
    var browserCode = catalogueOf(wantedLanguage('auto'));
    var early = loadCatalogue(browserCode);
    // Network trouble, 5xx or 429: try a few more times, quietly.
    var retry = function (r) {
      if (++attempts > 3) return;
      var secs = r ? parseInt(r.headers.get('Retry-After'), 10) : 0;
      setTimeout(fetchConfig, (secs > 0 ? secs : 5 * attempts * attempts) * 1000);
    };
    var fetchConfig = function () {
      request('GET', '/config').then(function (r) {
        if (r.status === 404 || r.status === 422) return; // no active chatbot: render nothing at all
        if (!r.ok || !r.data) return retry(r);
        S.cfg = r.data;
        S.brand = r.data.branding || {};
        S.poll = clampPoll(r.data.poll_seconds);
        S.locale = wantedLanguage(S.brand.language);
        var code = catalogueOf(S.locale);
        (code === browserCode ? early : loadCatalogue(code)).then(function (catalogue) {
          if (catalogue && typeof catalogue === 'object') {
            words = catalogue;
            lang = code;
          }
          if (!mount()) return;
          S.ready = true;
          S.later.splice(0).forEach(function (fn) { fn(); });
          restore();
        });
      }, function () { retry(null); });
    };
    fetchConfig();
  }

  // Bring back what this visitor already has: their stored conversation, or the latest one the server knows.
  function restore() {
    S.restored = true;
    var next = function () {
      S.quiet = false;
      connectSocket();
      ensureBeat(true); // "on load"
      setupProactive();
      if (load(session, 'open') === '1') setOpen(true, false); // stay open across page navigations
    };
    var usual = function () { return S.identity ? recall() : S.conv ? catchUp().then(function () { if (!S.conv) return discover(); }) : discover(); };
    var restored = CONTINUE ? followLink(usual) : usual();
    restored.then(next, next);
  }

  // The follow-up link: the server moves its conversation to this visitor id and answers it; the chat
  // opens on it. A link that is expired or not valid says so and the usual restore runs.
  function followLink(usual) {
    var headers = Object.assign(visitorHeader(), { 'X-Continue': CONTINUE });
    CONTINUE = null;
    return request('GET', '/conversation', null, headers).then(function (r) {
      var d = r.ok && r.data;
      if (!d || !d.conversation_id) {
        showError(errorText(r));
        return usual();
      }
      if (S.conv && S.conv !== d.conversation_id) clearConversation(true);
      setConversation(d.conversation_id);
      applyState(d);
      save(session, 'open', '1');
    }, usual);
  }

  // A visitor minted on this page load has nothing to find, and a miss is a 404 that browsers log
  // in the console: look once per tab session at most. Invites arrive through heartbeats anyway.
  function discover() {
    var looked = load(session, 'discovered');
    save(session, 'discovered', '1');
    if (freshVisitor || looked) return Promise.resolve();
    return request('GET', '/conversation', null, visitorHeader()).then(function (r) {
      var d = r.ok && r.data;
      if (!d || !d.conversation_id || S.conv) return;
      if (d.conversation_id === load(local, 'closed')) return; // the visitor started a new chat after this one
      setConversation(d.conversation_id);
      applyState(d);
    }, noop);
  }

  // ------------------------------------------------------------------ identity

  // Another customer than the one last signed in on this device starts as a new visitor: the last
  // one's chat is not theirs.
  function signIn(token) {
    var sub = token ? tokenSub(token) : '';
    var was = load(local, 'customer');
    if (sub && was && sub !== was) forgetVisitor();
    if (sub) save(local, 'customer', sub);
    S.identity = token;
    S.identityRefused = false;
    renderChrome();
    if (token && S.restored) recall();
  }

  // The customer a token names, read unverified: only to notice a change; the server verifies every use.
  function tokenSub(token) {
    try {
      return String(JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sub || '');
    } catch (e) {
      return ''; // not readable: the server refuses it
    }
  }

  // The signed-in customer's latest conversation, from whichever device they used (the server moves
  // it to this visitor id), else this visitor's own. `lost`: the catch-up found ours gone (another
  // device took it).
  function recall(lost) {
    var token = S.identity;
    var fallback = function () { return lost ? clearConversation(true) : S.conv ? catchUp() : null; };
    var headers = Object.assign(visitorHeader(), { 'X-Identity': token });
    return request('GET', '/conversation', null, headers).then(function (r) {
      if (token !== S.identity) return;
      if (r.status === 422) refuseIdentity(r);
      var d = r.ok && r.data;
      if (!d || !d.conversation_id || d.conversation_id === load(local, 'closed')) return fallback();
      if (S.conv && S.conv !== d.conversation_id) clearConversation(true);
      setConversation(d.conversation_id);
      applyState(d);
    }, fallback);
  }

  function refuseIdentity(r) {
    if (window.console) console.warn('[parley] identity token refused:', r.data && r.data.message);
    S.identityRefused = true;
    renderChrome();
  }

  // ------------------------------------------------------------------ conversation state

  // Gap-free catch-up: everything after the last id an HTTP read confirmed. One request at a time;
  // a call during a request runs once more afterwards.
  function catchUp() {
    if (!S.conv) return Promise.resolve();
    if (S.syncing) {
      S.resync = true;
      return S.syncing;
    }
    var conv = S.conv;
    var path = '/conversations/' + encodeURIComponent(conv) + (S.cursor ? '?' + q('after', S.cursor) : '');
    S.syncing = request('GET', path, null, visitorHeader()).then(function (r) {
      if (conv !== S.conv) return; // reset while the request was out
      if (r.status === 404) return S.identity ? recall(true) : clearConversation(true); // not this visitor's (any more)
      if (r.ok && r.data) applyState(r.data);
    }, noop).finally(function () {
      S.syncing = null;
      if (S.resync) {
        S.resync = false;
        catchUp();
      }
    });
    return S.syncing;
  }

  function applyState(d) {
    (d.messages || []).forEach(function (m) {
      receive(m);
      var n = Number(m && m.id);
      if (n > S.cursor) S.cursor = n;
    });
    setState(d);
  }

  function setState(d) {
    if (!d) return;
    if (d.status) S.status = d.status;
    if (d.handoff_state) S.handoff = d.handoff_state;
    if ('wait_remaining' in d) {
      var secs = Number(d.wait_remaining);
      S.waitUntil = d.wait_remaining == null || !isFinite(secs) ? 0 : Date.now() + secs * 1000;
    }
    // Auto routing (docs/routing.md): the place in the queue, from the handoff answer and the state reads.
    if ('queue_position' in d) S.queuePosition = Number(d.queue_position) || 0;
    renderChrome();
  }

  // persist=false when another tab already changed storage (see the storage listener).
  // The transcript stays: a new id from the stream continues on screen what the visitor just wrote.
  function setConversation(id, persist) {
    if (!id || id === S.conv) return;
    S.conv = id;
    if (persist !== false) save(local, 'conversation', id);
    S.cursor = 0;
    S.lastSeq = null;
    if (!S.quiet) connectSocket();
    ensureBeat(true);
    renderChrome();
  }

  function clearConversation(persist) {
    cancelStream();
    closeSocket();
    S.conv = null;
    if (persist !== false) save(local, 'conversation', null);
    S.cursor = 0;
    S.lastSeq = null;
    S.status = S.handoff = null;
    S.queuePosition = 0;
    S.waitUntil = 0;
    S.order = [];
    S.byId = {};
    ui.log.textContent = '';
    if (ui.welcome) ui.log.appendChild(ui.welcome);
    clearError();
    renderChrome();
  }

  function newChat() {
    toggleMenu(false);
    var conv = S.conv;
    if (!conv) return;
    ui.reset.disabled = true;
    cancelStream();
    request('POST', '/chat/reset', { visitor_id: S.visitor, conversation_id: conv }).then(function (r) {
      // 404 = already gone on the server: the local copy goes as well.
      if (!r.ok && r.status !== 404) return showError(errorText(r));
      save(local, 'closed', conv);
      if (S.conv === conv) clearConversation(true);
      focusComposer();
    }, function () {
      showError(t('new_chat_failed'));
    }).finally(function () { ui.reset.disabled = false; });
  }

  function forgetVisitor() {
    clearConversation(true);
    ['visitor', 'prechat', 'closed', 'customer'].forEach(function (k) { save(local, k, null); });
    save(session, 'open', null);
    S.visitor = uuid();
    freshVisitor = true;
    save(local, 'visitor', S.visitor);
    S.identity = null;
    S.unread = 0;
    hideBubble();
    setOpen(false, false);
    renderChrome();
  }

  // ------------------------------------------------------------------ messages

  // Merge one server message (state read, socket, heartbeat) into the transcript by id.
  function receive(m) {
    if (!m || m.id == null) return;
    var id = String(m.id);
    var content = m.content == null ? '' : String(m.content);
    var rec = S.byId[id];
    if (rec) {
      if (rec.content !== content && !rec.streaming) {
        rec.content = content;
        fill(rec.bubble, content);
      }
      return;
    }
    rec = adopt(m, content);
    if (rec) {
      assignId(rec, id);
      return;
    }
    rec = record(m.role, content, id);
    add(rec);
    notify(rec);
    if (m.role === 'agent') showAgentTyping(null);
  }

  // A message we already show without an id: our own pending visitor message, or the reply being streamed.
  function adopt(m, content) {
    var cur = S.cur;
    if (m.role === 'visitor') {
      for (var i = 0; i < S.order.length; i++) {
        var r = S.order[i];
        if (r.id == null && r.sent && r.role === 'visitor' && r.content.trim() === content.trim()) return r;
      }
    } else if (m.role === 'assistant' && cur && cur.vid && !cur.finished && Number(m.id) > Number(cur.vid)) {
      var reply = replyRecord(cur);
      if (reply.id != null) return null;
      cur.sealed = true; // the full text is here: later deltas would duplicate it
      reply.content = content;
      fill(reply.bubble, content);
      typing(false);
      return reply;
    }
    return null;
  }

  function assignId(rec, id) {
    id = String(id);
    if (rec.id === id) return;
    var other = S.byId[id];
    if (other && other !== rec) removeRecord(other); // the same message arrived by another path
    rec.id = id;
    S.byId[id] = rec;
    rec.el.setAttribute('data-id', id);
    rec.el.classList.remove('pending');
  }

  function record(role, content, id) {
    role = ROLES[role] ? role : 'assistant';
    var bubble = h('div', { class: 'bubble', dir: 'auto' }); // an English answer in an Arabic panel reads left to right
    var el = h('div', {
      class: 'msg ' + role + (id == null ? ' pending' : ''),
      'data-parley': 'message',
      'data-role': role,
      'data-id': id == null ? 'pending' : id
    }, [role === 'agent' ? h('div', { class: 'who', text: t('agent') }) : null, bubble]);
    fill(bubble, content);
    var rec = { id: id == null ? null : String(id), role: role, content: content || '', el: el, bubble: bubble };
    if (id != null) rateable(rec);
    return rec;
  }

  // ------------------------------------------------------------------ answer feedback
  // Thumbs up or down under each stored AI answer (POST messages/{id}/feedback; a repeat replaces it).
  // The choice is remembered on this device so it shows again after a reload.
  function ratings() {
    try {
      return JSON.parse(load(local, 'ratings') || '{}') || {};
    } catch (e) {
      return {};
    }
  }

  function rateable(rec) {
    if (rec.role !== 'assistant' || rec.id == null || rec.streaming || rec.rate) return;
    var group = h('div', { class: 'rate', role: 'group', 'aria-label': t('feedback'), 'data-parley': 'feedback' });
    var buttons = [['up', 'helpful', '\ud83d\udc4d'], ['down', 'not_helpful', '\ud83d\udc4e']].map(function (b) {
      return h('button', { type: 'button', 'data-rating': b[0], 'aria-label': t(b[1]), title: t(b[1]), 'aria-pressed': 'false', onclick: function () { rate(rec, b[0]); } }, [b[2]]);
    });
    buttons.forEach(function (b) { group.appendChild(b); });
    rec.rate = { group: group, buttons: buttons };
    rec.el.appendChild(group);
    showRating(rec, ratings()[rec.id]);
  }

  function showRating(rec, value) {
    rec.rate.buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-rating') === value)); });
  }

  function rate(rec, value) {
    var before = ratings()[rec.id];
    showRating(rec, value);
    request('POST', '/messages/' + encodeURIComponent(rec.id) + '/feedback', { visitor_id: S.visitor, rating: value }).then(function (r) {
      if (!r.ok) throw r;
      var all = ratings();
      all[rec.id] = value;
      var ids = Object.keys(all);
      if (ids.length > 200) delete all[ids[0]]; // a bounded memory: the oldest answers go first
      save(local, 'ratings', JSON.stringify(all));
    }).catch(function (r) {
      showRating(rec, before);
      showError(r && r.status ? errorText(r) : t('unreachable'));
    });
  }

  // Messages sit in id order; ones still without an id (sending, streaming) stay last.
  // `after`: a streamed reply goes right after its own message, before any queued ones.
  function add(rec, forceScroll, after) {
    var near = nearBottom();
    var before = after ? S.order[S.order.indexOf(after) + 1] : null;
    if (rec.id != null) {
      var n = Number(rec.id);
      for (var i = 0; i < S.order.length; i++) {
        if (S.order[i].id == null || Number(S.order[i].id) > n) {
          before = S.order[i];
          break;
        }
      }
      S.byId[rec.id] = rec;
    }
    if (before) {
      ui.log.insertBefore(rec.el, before.el);
      S.order.splice(S.order.indexOf(before), 0, rec);
    } else {
      ui.log.insertBefore(rec.el, ui.typing.parentNode ? ui.typing : null);
      S.order.push(rec);
    }
    if (near || forceScroll) toBottom();
    if (rec.role === 'visitor' || S.order.length === 1) renderChrome(); // chips and pre-chat depend on these
  }

  function removeRecord(rec) {
    rec.el.remove();
    var i = S.order.indexOf(rec);
    if (i >= 0) S.order.splice(i, 1);
    if (rec.id != null && S.byId[rec.id] === rec) delete S.byId[rec.id];
  }

  function notify(rec) {
    if (S.quiet || rec.role === 'visitor' || rec.role === 'system') return;
    if (!S.open) {
      S.unread++;
      renderBadge();
      if (rec.role === 'agent') showBubble(rec.content);
    }
    if (rec.role === 'agent' && S.brand.sound && (!S.open || document.hidden || !document.hasFocus())) beep();
  }

  function notice(text) {
    keepBottom(function () { ui.log.insertBefore(h('div', { class: 'notice', text: text }), ui.typing.parentNode ? ui.typing : null); });
  }

  // Text only, never HTML. Light formatting: **bold**, [label](https://...) and bare http(s) links;
  // line breaks come from `white-space: pre-wrap`.
  var TOKENS = /\*\*([^*\n]+)\*\*|\[([^\]\n]{1,300})\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>"'`]+)/g;

  function fill(el, text) {
    el.textContent = '';
    text = text == null ? '' : String(text);
    var re = new RegExp(TOKENS.source, 'g');
    var last = 0;
    var m;
    while ((m = re.exec(text))) {
      var start = m.index;
      var node;
      if (m[1]) {
        node = h('strong', { text: m[1] });
      } else if (m[2]) {
        node = link(m[3], m[2]);
      } else {
        // Trailing punctuation belongs to the sentence. A loop, not /[.,;:!?'")\]]+$/: that rescanned a long dot run from each dot.
        var end = m[4].length;
        while (end > 0 && '.,;:!?\'")]'.indexOf(m[4].charAt(end - 1)) >= 0) end--;
        var url = m[4].slice(0, end);
        re.lastIndex = start + url.length;
        node = link(url, url);
      }
      if (start > last) el.appendChild(document.createTextNode(text.slice(last, start)));
      el.appendChild(node || document.createTextNode(text.slice(start, re.lastIndex)));
      last = re.lastIndex;
    }
    if (last < text.length) el.appendChild(document.createTextNode(text.slice(last)));
  }

  function safeUrl(href) {
    try {
      var u = new URL(href, BASE);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  function link(href, label, ariaLabel) {
    var url = href ? safeUrl(href) : null;
    if (!url) return null;
    var a = h('a', { target: '_blank', rel: 'noopener noreferrer', 'aria-label': ariaLabel, text: label });
    a.href = url;
    return a;
  }

  function sourcesBlock(list) {
    var box = h('div', { class: 'sources' }, [h('span', { text: t('sources') })]);
    list.slice(0, 6).forEach(function (s) {
      if (!s) return;
      var title = String(s.title || s.url || t('source'));
      box.appendChild(link(s.url, title) || h('span', { text: title }));
    });
    return box;
  }

  function money(value, currency) {
    if (value == null || value === '') return '';
    var n = Number(value);
    if (!isFinite(n)) return String(value);
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' }).format(n);
    } catch (e) {
      return n.toFixed(2) + (currency ? ' ' + currency : '');
    }
  }

  // Product recommendations: small text-only cards (no images) with links.
  function cardsBlock(products) {
    var box = h('div', { class: 'cards' });
    (Array.isArray(products) ? products : []).slice(0, 6).forEach(function (p) {
      if (!p || !p.name) return;
      var name = String(p.name);
      var facts = [money(p.price, p.currency), p.in_stock === false ? t('out_of_stock') : ''].filter(Boolean).join(' \u00b7 ');
      box.appendChild(h('div', { class: 'card' }, [
        h('div', { class: 'name', text: name }),
        facts ? h('div', { class: 'facts', text: facts }) : null,
        p.description ? h('div', { class: 'desc', text: String(p.description) }) : null,
        h('div', { class: 'links' }, [
          link(p.url, t('view'), t('view_item', { name: name })),
          p.in_stock === false ? null : link(p.buy_url, t('buy'), t('buy_item', { name: name }))
        ])
      ]));
    });
    return box;
  }

  // ------------------------------------------------------------------ sending and streaming

  function blocked() {
    return !S.ready || (S.cfg.identity_required && (!S.identity || S.identityRefused)) || needPrechat();
  }

  function send(text) {
    text = String(text || '').trim();
    if (!text || blocked()) return false;
    clearError();
    var rec = record('visitor', text.slice(0, MAX_CHARS), null);
    add(rec, true);
    // Sending back the text a failed attempt returned reuses its id: the server stores and answers it once.
    var clientId = S.retry && S.retry.text === rec.content ? S.retry.id : uuid();
    S.retry = null;
    S.queue.push({ text: rec.content, rec: rec, clientId: clientId });
    pump();
    return true;
  }

  // One stream at a time: later messages wait for done/error of the current one.
  function pump() {
    if (S.busy || !S.queue.length) return;
    S.busy = true;
    var job = S.queue.shift();
    stream(job).catch(function (e) {
      if (window.console) console.error('[parley]', e);
    }).then(function () {
      S.busy = false;
      S.cur = null;
      typing(false);
      pump();
    });
  }

  function pageMeta() {
    var meta = { page_url: truncate(location.href, 2000), page_title: truncate(document.title, 300) };
    if (document.referrer) meta.referrer = truncate(document.referrer, 2000);
    var pre = parse(load(local, 'prechat'));
    if (pre) {
      var visitor = {};
      ['name', 'email', 'phone'].forEach(function (k) { if (pre[k]) visitor[k] = pre[k]; });
      if (Object.keys(visitor).length) meta.visitor = visitor;
    }
    return meta;
  }

  // EventSource cannot POST, so the stream is read with fetch and parsed here.
  async function stream(job) {
    var ctrl = new AbortController();
    var cur = S.cur = { job: job, ctrl: ctrl, rec: null, vid: null, finished: false, sealed: false, cancelled: false };
    job.rec.sent = true;
    typing(true);
    var body = { visitor_id: S.visitor, message: job.text, client_id: job.clientId, locale: S.locale, meta: pageMeta(), timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    if (S.conv) body.conversation_id = S.conv;
    if (S.identity && !S.identityRefused) body.identity = S.identity;

    var res;
    var waiting = setTimeout(function () { ctrl.abort(); }, STREAM_IDLE_MS); // no answer at all
    try {
      res = await fetch(API + '/stream', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify(body),
        credentials: 'omit',
        signal: ctrl.signal
      });
    } catch (e) {
      if (!cur.cancelled) giveBack(job, t('unreachable'));
      return;
    } finally {
      clearTimeout(waiting);
    }
    if (!/text\/event-stream/i.test(res.headers.get('content-type') || '')) {
      // Rejected before streaming started (404, 422, 429...): an ordinary JSON error.
      var text = await res.text().catch(function () { return ''; });
      var refusal = { status: res.status, headers: res.headers, data: parse(text) };
      if (res.status === 422 && refusal.data && refusal.data.errors && refusal.data.errors.identity) refuseIdentity(refusal);
      if (!cur.cancelled) giveBack(job, errorText(refusal));
      return;
    }

    try {
      await readEvents(res, cur, function (event, data) { onStreamEvent(cur, event, data || {}); });
    } catch (e) { /* a dropped connection: handled below */ }
    if (cur.cancelled || cur.finished) return;

    // The stream ended without done/error: show whatever the server persisted.
    dropReply(cur);
    typing(false);
    await catchUp();
    if (cur.cancelled) return;
    if (job.rec.id == null) giveBack(job, t('not_sent'));
    else if (!answered(job.rec)) resendOnce(job, t('cut_off'));
  }

  // The message is stored but its answer was cut off (a dropped stream, a server that went away):
  // sending it again with the same client id lets the server answer it, never twice.
  function resendOnce(job, failure) {
    if (job.resent) return showError(failure);
    job.resent = true;
    setTimeout(function () {
      if (answered(job.rec) || S.queue.indexOf(job) >= 0) return;
      S.queue.unshift(job);
      pump();
    }, RESEND_MS);
  }

  async function readEvents(res, cur, onEvent) {
    var reader = res.body.getReader();
    var decoder = new TextDecoder();
    var buffer = '';
    var name = '';
    var data = [];
    var idle = 0;
    var dispatch = function () {
      var parsed = data.length ? parse(data.join('\n')) : null;
      if (parsed) onEvent(name || 'message', parsed); // a truncated event is dropped, never half-applied
      name = '';
      data = [];
    };
    var take = function (line) {
      if (line === '') return dispatch();
      if (line[0] === ':') return; // heartbeat comment
      var colon = line.indexOf(':');
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
      // `id:` and `retry:` lines are not needed: a POST stream is never resumed.
    };
    try {
      for (;;) {
        clearTimeout(idle);
        idle = setTimeout(function () { cur.ctrl.abort(); }, STREAM_IDLE_MS);
        var chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        var m;
        // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
        while ((m = /\r\n|\r|\n/.exec(buffer)) && !(m[0] === '\r' && m.index === buffer.length - 1)) {
          take(buffer.slice(0, m.index));
          buffer = buffer.slice(m.index + m[0].length);
          if (cur.finished || cur.cancelled) break;
        }
        if (cur.finished || cur.cancelled) {
          reader.cancel().catch(noop);
          return;
        }
      }
      take(buffer.replace(/\r$/, ''));
      dispatch(); // tolerate a final event without its blank line
    } finally {
      clearTimeout(idle);
    }
  }

  function onStreamEvent(cur, event, d) {
    if (cur.cancelled || cur.finished) return;
    var reply;
    if (event === 'meta') {
      if (d.conversation_id) setConversation(String(d.conversation_id));
      if (d.visitor_message_id != null) {
        cur.vid = String(d.visitor_message_id);
        assignId(cur.job.rec, cur.vid);
      }
      if (d.status) setState({ status: d.status });
    } else if (event === 'delta') {
      if (typeof d.delta !== 'string' || cur.sealed) return;
      typing(false);
      reply = replyRecord(cur);
      keepBottom(function () {
        if (!reply.text) reply.bubble.appendChild(reply.text = document.createTextNode(''));
        reply.text.appendData(d.delta);
      });
      reply.content += d.delta;
    } else if (event === 'recommendations') {
      reply = replyRecord(cur);
      keepBottom(function () { reply.el.appendChild(cardsBlock(d.products)); });
    } else if (event === 'done') {
      cur.finished = true;
      typing(false);
      reply = replyRecord(cur);
      reply.streaming = false;
      reply.el.removeAttribute('aria-busy');
      if (d.message_id != null) assignId(reply, d.message_id);
      rateable(reply);
      setState(d); // the AI may have handed over to a person: show the wait
      if (!cur.sealed) fill(reply.bubble, reply.content); // now complete: render links and bold
      var hasCards = reply.el.querySelector('.cards');
      if (!reply.content && !hasCards) {
        removeRecord(reply);
        catchUp();
        return;
      }
      if (Array.isArray(d.sources) && d.sources.length) keepBottom(function () { reply.el.appendChild(sourcesBlock(d.sources)); });
      if (!S.open) {
        S.unread++;
        renderBadge();
      }
    } else if (event === 'error') {
      cur.finished = true;
      typing(false);
      dropReply(cur);
      // handoff: a human holds the conversation; the message was saved and no AI reply comes.
      var failure = d.message || t('no_answer');
      if (d.code === 'handoff') notice(t('sent_to_agent'));
      else if (d.code !== 'internal') showError(failure);
      catchUp().then(function () {
        if (d.code === 'internal' && !answered(cur.job.rec)) resendOnce(cur.job, failure);
      });
    }
  }

  // The assistant bubble of the current stream, created on first use.
  function replyRecord(cur) {
    if (!cur.rec) {
      cur.rec = record('assistant', '', null);
      cur.rec.streaming = true;
      cur.rec.el.setAttribute('aria-busy', 'true'); // screen readers read the reply once, when complete
      add(cur.rec, false, cur.job.rec);
    }
    return cur.rec;
  }

  // A partial reply that was never saved goes; the catch-up brings whatever was persisted.
  function dropReply(cur) {
    if (cur.rec && cur.rec.id == null) removeRecord(cur.rec);
  }

  function answered(visitorRec) {
    var i = S.order.indexOf(visitorRec);
    return S.order.slice(i + 1).some(function (r) { return r.role !== 'visitor'; });
  }

  // The message never reached the server: its text (and anything queued behind it) goes back to the composer.
  function giveBack(job, message) {
    var jobs = [job].concat(S.queue.splice(0));
    S.retry = jobs.length === 1 ? { text: job.text, id: job.clientId } : null;
    var texts = jobs.map(function (j) {
      removeRecord(j.rec);
      return j.text;
    });
    var typed = ui.ta.value.trim();
    ui.ta.value = texts.concat(typed ? [typed] : []).join('\n\n').slice(0, MAX_CHARS);
    composerChanged();
    showError(message);
    renderChrome();
  }

  function cancelStream() {
    if (S.cur) {
      S.cur.cancelled = true;
      S.cur.ctrl.abort();
      dropReply(S.cur);
    }
    S.queue.splice(0).forEach(function (j) { removeRecord(j.rec); });
    typing(false);
  }

  function typing(on) {
    if (!ui.typing) return;
    if (on) keepBottom(function () { ui.log.appendChild(ui.typing); });
    else if (ui.typing.parentNode) ui.typing.remove();
  }

  // ------------------------------------------------------------------ realtime and polling

  // Socket.IO client, loaded lazily from the service once a conversation exists.
  var ioFn = null;
  var ioWaiting = null;

  function loadIo(src, done) {
    if (ioFn) return done(ioFn);
    if (ioWaiting) return ioWaiting.push(done);
    ioWaiting = [done];
    // The UMD bundle would overwrite the page's own `io` global or register with its AMD loader: keep both intact.
    var hadIo = 'io' in window;
    var pageIo = window.io;
    var define = window.define;
    var amd = typeof define === 'function' && define.amd;
    if (amd) window.define = undefined;
    var tag = document.createElement('script');
    tag.src = src;
    tag.async = true;
    if (script && script.nonce) tag.nonce = script.nonce; // pages with a nonce-based CSP
    tag.onload = tag.onerror = function (e) {
      var fn = e.type === 'load' && typeof window.io === 'function' ? window.io : null;
      if (hadIo) window.io = pageIo;
      else try { delete window.io; } catch (x) { window.io = undefined; }
      if (amd) window.define = define;
      tag.remove();
      ioFn = fn;
      var waiting = ioWaiting;
      ioWaiting = null; // after a failure, the next conversation change tries again
      waiting.forEach(function (cb) { cb(fn); });
    };
    (document.head || document.documentElement).appendChild(tag);
  }

  function connectSocket() {
    var rt = S.cfg && S.cfg.realtime;
    if (S.socket && S.socketConv === S.conv) return;
    closeSocket();
    if (!S.conv || !rt || (rt.transport && rt.transport !== 'socket.io')) return;
    var u;
    try {
      u = new URL(rt.url || BASE, BASE);
    } catch (e) {
      return;
    }
    // A path on realtime.url is a prefix of the socket path (a path on io()'s URL would be a namespace).
    var path = u.pathname.replace(/\/+$/, '') + (rt.path || '/socket.io');
    var conv = S.conv;
    loadIo(u.origin + path + '/socket.io.min.js', function (io) {
      if (!io || conv !== S.conv || S.socket) return; // not loaded: heartbeats poll instead
      var socket = S.socket = io(u.origin, {
        path: path,
        auth: { key: KEY, visitor_id: S.visitor, conversation_id: conv },
        transports: ['websocket', 'polling'],
        tryAllTransports: true
      });
      S.socketConv = conv;
      socket.on('connect', function () {
        S.lastSeq = null;
        catchUp(); // covers whatever happened while disconnected
      });
      socket.on('message.created', function (env) { onEnvelope(env, true); });
      socket.on('conversation.updated', function (env) { onEnvelope(env, false); });
      socket.on('typing', onTyping);
      socket.on('queue.position', onQueuePosition);
      socket.on('connect_error', noop); // refused or unreachable: heartbeats keep polling
    });
  }

  function closeSocket() {
    showAgentTyping(null);
    S.typingSent = 0;
    if (S.socket) {
      S.socket.off();
      S.socket.disconnect();
    }
    S.socket = S.socketConv = null;
  }

  function socketUp() {
    return !!(S.socket && S.socket.connected);
  }

  function onEnvelope(env, isMessage) {
    if (!env || typeof env !== 'object') return;
    var d = env.data || {};
    if (d.conversation_id && String(d.conversation_id) !== S.conv) return;
    var seq = Number(env.seq);
    var gap = false;
    if (env.seq != null && isFinite(seq)) {
      if (S.lastSeq != null && seq > S.lastSeq + 1) gap = true;
      if (S.lastSeq == null || seq > S.lastSeq) S.lastSeq = seq;
    }
    if (isMessage) receive(d);
    else setState(d);
    if (gap) catchUp(); // an event went missing: fetch it over HTTP
  }

  // Auto routing: the router pushes the place in the queue as it moves (outside the seq order: nothing is stored).
  function onQueuePosition(env) {
    var d = env && env.data;
    if (!d || String(d.conversation_id) !== S.conv) return;
    setState({ queue_position: d.queue_position });
  }

  // ------------------------------------------------------------------ typing, both ways
  // The server ends an agent's typing itself (typing: false after 5 s without a repeat), so the
  // line shows until it says so, or until that agent's message arrives.
  function onTyping(env) {
    var d = env && env.data;
    if (!d || d.who !== 'agent' || String(d.conversation_id) !== S.conv) return;
    showAgentTyping(d.typing ? String(d.name || t('agent')) : null);
  }

  function showAgentTyping(name) {
    if (!ui.agentTyping) return;
    ui.agentTyping.textContent = name ? t('agent_typing', { name: name }) : '';
    ui.agentTyping.hidden = !name;
  }

  // While the visitor types: one `typing` at most every 2.5 s (the server passes one per 2 s), with the
  // draft as a preview only when the chatbot tracks behaviour; a stop once the field is emptied or sent.
  var TYPING_REPEAT_MS = 2500;
  var TYPING_PREVIEW = 120;
  function visitorTyped() {
    if (!socketUp()) return;
    var text = ui.ta.value;
    var now = Date.now();
    if (!text.trim()) {
      if (S.typingSent) S.socket.emit('typing', { typing: false });
      S.typingSent = 0;
      return;
    }
    if (now - S.typingSent < TYPING_REPEAT_MS) return;
    S.typingSent = now;
    var signal = { typing: true };
    if (S.brand.behavior_tracking) signal.preview = text.slice(-TYPING_PREVIEW);
    S.socket.emit('typing', signal);
  }

  // Heartbeats mark the visitor online for agents ("live visitors") and double as the poll fallback:
  // they return agent and invite messages held for this visitor.
  function wantBeat() {
    return !!(S.brand.live_visitors || S.conv);
  }

  function ensureBeat(now) {
    if (!S.ready || !wantBeat() || S.hbBusy || (S.hbTimer && !now)) return;
    clearTimeout(S.hbTimer);
    S.hbTimer = setTimeout(beat, now ? 0 : S.poll * 1000);
  }

  function beat() {
    S.hbTimer = 0;
    if (!wantBeat()) return;
    if (document.hidden && S.hiddenAt && Date.now() - S.hiddenAt > HIDDEN_PAUSE_MS) return; // visibilitychange resumes
    S.hbBusy = true;
    var conv = S.conv;
    var body = { visitor_id: S.visitor, url: truncate(location.href, 2000), timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    if (document.title) body.title = truncate(document.title, 300);
    if (document.referrer) body.referrer = truncate(document.referrer, 2000);
    if (conv) body.conversation_id = conv;
    request('POST', '/heartbeat', body).then(function (r) {
      var d = r.ok && r.data;
      if (!d || conv !== S.conv) return; // the conversation changed meanwhile: this answer is stale
      if (d.poll_seconds) S.poll = clampPoll(d.poll_seconds);
      var messages = Array.isArray(d.messages) ? d.messages : [];
      var id = d.conversation_id ? String(d.conversation_id) : null;
      // An agent invite opens a conversation this widget did not know: adopt it. Never while a message
      // is on its way: its stream names the conversation it went to, and that one wins.
      if (id && id !== S.conv && id !== load(local, 'closed') && !S.busy && !S.queue.length && (!S.conv || messages.length)) {
        if (S.conv) clearConversation(true);
        setConversation(id);
      }
      messages.forEach(function (m) { receive(m); });
      if (S.conv && (!socketUp() || messages.length)) catchUp();
    }, noop).finally(function () {
      S.hbBusy = false;
      if (wantBeat()) S.hbTimer = setTimeout(beat, S.poll * 1000);
    });
  }

  // ------------------------------------------------------------------ sound

  // Browsers only let audio start after a user gesture, so the context is created on the first one.
  function unlockAudio() {
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!S.brand.sound || S.audio || !AC) return;
    try {
      S.audio = new AC();
    } catch (e) { /* no audio: stay silent */ }
  }

  function beep() {
    var ac = S.audio;
    if (!ac) return;
    try {
      if (ac.state === 'suspended') ac.resume();
      var t = ac.currentTime;
      var osc = ac.createOscillator();
      var gain = ac.createGain();
      osc.type = 'sine';
      osc.frequency.setValueAtTime(880, t);
      osc.frequency.setValueAtTime(1175, t + 0.09);
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.12, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.3);
      osc.connect(gain);
      gain.connect(ac.destination);
      osc.start(t);
      osc.stop(t + 0.32);
    } catch (e) { /* never let a sound break the chat */ }
  }

  // ------------------------------------------------------------------ proactive message

  function setupProactive() {
    var p = S.brand.proactive;
    if (!p || !p.enabled || !p.message) return;
    if (p.url_contains && location.href.indexOf(p.url_contains) < 0) return;
    var day = new Date().toDateString();
    if (p.frequency === 'once_per_session' && load(session, 'proactive')) return;
    if (p.frequency === 'once_per_day' && load(local, 'proactive_day') === day) return;

    var delay = Math.max(0, Number(p.delay) || 0);
    var scroll = Math.max(0, Number(p.scroll) || 0);
    var timer = 0;
    var fired = false;
    var cleanup = function () {
      clearTimeout(timer);
      window.removeEventListener('scroll', onScroll);
      document.removeEventListener('mouseout', onLeave);
    };
    var fire = function () {
      if (fired) return;
      fired = true;
      cleanup();
      if (S.open || S.conv) return; // already talking: no nudge
      if (p.frequency === 'once_per_session') save(session, 'proactive', '1');
      if (p.frequency === 'once_per_day') save(local, 'proactive_day', day);
      showBubble(p.message);
    };
    var onScroll = function () {
      var doc = document.documentElement;
      var max = Math.max(doc.scrollHeight, document.body ? document.body.scrollHeight : 0) - window.innerHeight;
      var pct = max <= 0 ? 100 : (window.scrollY || doc.scrollTop) / max * 100;
      if (pct >= scroll) fire();
    };
    // Exit intent: the pointer leaves through the top of the window (towards tabs and the address bar).
    var onLeave = function (e) {
      if (!e.relatedTarget && e.clientY <= 0) fire();
    };
    // Any configured trigger shows it; with none configured it shows right away.
    if (delay) timer = setTimeout(fire, delay * 1000);
    if (scroll) {
      window.addEventListener('scroll', onScroll, { passive: true });
      onScroll();
    }
    if (p.exit_intent) document.addEventListener('mouseout', onLeave);
    if (!delay && !scroll && !p.exit_intent) fire();
  }

  function showBubble(text) {
    if (!ui.bubble || S.open) return;
    fill(ui.bubbleText, text);
    ui.bubble.hidden = false;
  }

  function hideBubble() {
    if (ui.bubble) ui.bubble.hidden = true;
  }

  // ------------------------------------------------------------------ DOM helpers

  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'text') el.textContent = v;
      else if (k === 'class') el.className = v;
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : v);
    }
    (children || []).forEach(function (c) {
      if (c != null) el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return el;
  }

  // Icons are built as SVG nodes (no markup strings anywhere in this file).
  var ICONS = {
    chat: 'M21 11.5a8.4 8.4 0 0 1-.9 3.8 8.5 8.5 0 0 1-7.6 4.7 8.4 8.4 0 0 1-3.8-.9L3 21l1.9-5.7a8.4 8.4 0 0 1-.9-3.8 8.5 8.5 0 0 1 4.7-7.6 8.4 8.4 0 0 1 3.8-.9h.5a8.5 8.5 0 0 1 8 8z',
    close: 'M18 6 6 18M6 6l12 12',
    send: 'M12 19V5M5 12l7-7 7 7',
    more: 'M5 12h.01M12 12h.01M19 12h.01',
    person: 'M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z',
    plus: 'M12 5v14M5 12h14'
  };

  function icon(name, cls) {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    var path = document.createElementNS(ns, 'path');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    if (cls) svg.setAttribute('class', cls);
    path.setAttribute('d', ICONS[name]);
    svg.appendChild(path);
    return svg;
  }

  function img(src, cls) {
    var url = src ? safeUrl(src) : null;
    if (!url) return null;
    var el = h('img', { class: cls, alt: '' }); // decorative: the title is next to it
    el.onerror = function () { el.remove(); };
    el.src = url;
    return el;
  }

  function pick(value, allowed, fallback) {
    return allowed.indexOf(value) >= 0 ? value : fallback;
  }

  // ------------------------------------------------------------------ look

  // [panel background, surface (bot bubbles, bars), text, muted text, borders, default accent, dark?]
  var THEMES = {
    minimal: ['#ffffff', '#f4f4f5', '#18181b', '#71717a', '#e4e4e7', '#18181b'],
    ocean: ['#f8fbff', '#e6f0fa', '#0f2940', '#56708a', '#d3e3f3', '#0a6cbc'],
    emerald: ['#fbfefc', '#e5f5ec', '#0f2e22', '#537263', '#d0e9dc', '#059669'],
    midnight: ['#0f172a', '#1e293b', '#e2e8f0', '#94a3b8', '#334155', '#6366f1', 1],
    sunset: ['#fffaf5', '#fdecdf', '#3b1d0e', '#87634f', '#f3dac8', '#ea580c'],
    crisp: ['#ffffff', '#f1f5f9', '#0f172a', '#64748b', '#e2e8f0', '#2563eb'],
    violet: ['#fcfaff', '#efe8fd', '#2e1065', '#6d5c8d', '#e2d8f9', '#7c3aed'],
    rose: ['#fffbfc', '#fce8ee', '#4c0519', '#8a5867', '#f5d4dd', '#e11d48'],
    slate: ['#f8fafc', '#e8edf2', '#1e293b', '#64748b', '#d7dfe8', '#475569'],
    forest: ['#fafcf7', '#e8efe0', '#1f2f16', '#5c6c50', '#d5e0ca', '#3f6212']
  };

  // The two neutral themes follow the visitor's system (prefers-color-scheme); a coloured theme, or
  // midnight, is the operator's fixed choice and stays as it is.
  var DARK = {
    minimal: ['#18181b', '#27272a', '#f4f4f5', '#a1a1aa', '#3f3f46', '#f4f4f5', 1],
    crisp: ['#0f172a', '#1e293b', '#e2e8f0', '#94a3b8', '#334155', '#3b82f6', 1]
  };
  var darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function applyTheme(root) {
    var name = THEMES[S.brand.theme] ? S.brand.theme : 'crisp';
    var t = DARK[name] && darkQuery && darkQuery.matches ? DARK[name] : THEMES[name];
    var color = String(S.brand.primary_color || '');
    var accent = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(color) ? color.slice(0, 7) : t[5]; // alpha is ignored
    var vars = { '--bg': t[0], '--sf': t[1], '--tx': t[2], '--mu': t[3], '--bd': t[4], '--a': accent, '--on': onAccent(accent) };
    for (var k in vars) root.style.setProperty(k, vars[k]);
    root.style.colorScheme = t[6] ? 'dark' : 'light';
    root.setAttribute('data-scheme', t[6] ? 'dark' : 'light');
  }

  // Text colour on the accent: white unless the accent is light (relative luminance).
  function onAccent(hex) {
    var v = hex.slice(1);
    if (v.length === 3) v = v.replace(/./g, '$&$&');
    var lum = [0, 2, 4].map(function (i) {
      var c = parseInt(v.substr(i, 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2] > 0.3 ? '#111827' : '#ffffff';
  }

  var CSS = [
    // Page rules on the host element win over :host, and inherited ones (text-transform...) flow in: reset here.
    '.pw{all:initial;display:block;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif,"Apple Color Emoji","Segoe UI Emoji","Noto Color Emoji";color:var(--tx);-webkit-font-smoothing:antialiased;-webkit-text-size-adjust:100%}',
    '.pw *,.pw *::before,.pw *::after{box-sizing:border-box}',
    '[hidden]{display:none!important}',
    'button,input,textarea{font:inherit;color:inherit;margin:0}',
    'button{cursor:pointer}',
    'button:disabled{cursor:default}',
    ':focus-visible{outline:2px solid var(--a);outline-offset:2px}',
    '.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}',
    'svg{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round;flex:none}',

    /* launcher */
    '.launcher{position:fixed;z-index:2147483000;bottom:20px;right:20px;display:flex;align-items:center;justify-content:center;gap:8px;height:56px;min-width:56px;padding:0;padding-inline:18px 20px;border:0;border-radius:28px;background:var(--a);color:var(--on);font-weight:600;font-size:15px;box-shadow:0 6px 24px rgba(15,23,42,.24);transition:transform .15s ease,box-shadow .15s ease}',
    '.launcher:hover{transform:translateY(-2px);box-shadow:0 10px 28px rgba(15,23,42,.28)}',
    '.launcher svg{width:26px;height:26px}',
    '.launcher .x{display:none}',
    '.launcher.round,.is-open .launcher{width:56px;padding:0}',
    '.is-open .launcher .label,.is-open .launcher .chat{display:none}',
    '.is-open .launcher .x{display:block}',
    '.launcher.l-icon{width:48px;height:48px;min-width:48px;padding:0}',
    '.launcher.l-icon svg{width:22px;height:22px}',
    '.launcher.l-tab{top:50%;bottom:auto;right:0;height:auto;min-width:0;padding:16px 11px;border-radius:12px 0 0 12px;writing-mode:vertical-rl;transform:translateY(-50%);font-size:14px}',
    '.launcher.l-tab svg{width:20px;height:20px;transform:rotate(90deg)}',
    '.tabmode.is-open .launcher{visibility:hidden}',
    '.left .launcher{right:auto;left:20px}',
    '.left .launcher.l-tab{left:0;border-radius:0 12px 12px 0}',
    '.badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 6px;border-radius:10px;background:#e11d48;color:#fff;font-size:11.5px;font-weight:700;line-height:20px;text-align:center;writing-mode:horizontal-tb}',

    /* panel */
    '.panel{position:fixed;z-index:2147483001;bottom:90px;right:20px;width:380px;height:620px;max-height:calc(100vh - 110px);display:flex;flex-direction:column;background:var(--bg);color:var(--tx);border-radius:18px;overflow:hidden;box-shadow:0 16px 56px rgba(15,23,42,.24),0 0 0 1px rgba(15,23,42,.07);visibility:hidden;opacity:0;transform:translateY(14px) scale(.98);transform-origin:bottom right;transition:opacity .18s ease,transform .18s ease,visibility 0s linear .18s}',
    '.panel.open{visibility:visible;opacity:1;transform:none;transition:opacity .18s ease,transform .18s ease,visibility 0s}',
    '.compact .panel{width:340px;height:500px}',
    '.expanded .panel{width:440px;height:760px}',
    '.left .panel{right:auto;left:20px;transform-origin:bottom left}',
    '.tabmode .panel,.tabmode .proactive{bottom:20px}',
    '.tabmode .panel{max-height:calc(100vh - 40px)}',

    /* header */
    '.head{position:relative;display:flex;align-items:center;gap:10px;padding:14px;padding-inline:16px 10px;background:var(--a);color:var(--on);flex:none}',
    '.head :focus-visible{outline-color:currentColor}',
    '.logo{width:38px;height:38px;border-radius:11px;object-fit:cover;background:rgba(255,255,255,.18);flex:none}',
    '.titles{flex:1;min-width:0}',
    '.title{margin:0;font-size:15.5px;font-weight:650;line-height:1.3;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}',
    '.subtitle{font-size:12.5px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}', // full colour: dimmed, it fails contrast on mid-tone accents
    '.team{display:flex;padding-inline-end:4px}',
    '.team img{width:28px;height:28px;border-radius:50%;margin-inline-start:-9px;border:2px solid var(--a);object-fit:cover;background:var(--sf)}',
    '.team img:first-child{margin-inline-start:0}',
    '.hbtn{width:34px;height:34px;border:0;border-radius:10px;background:transparent;color:inherit;display:grid;place-items:center;flex:none}',
    '.hbtn:hover{background:rgba(255,255,255,.18)}',
    '.menu{position:absolute;top:calc(100% - 6px);inset-inline-end:10px;z-index:3;min-width:170px;padding:6px;background:var(--bg);color:var(--tx);border-radius:12px;box-shadow:0 10px 30px rgba(15,23,42,.2),0 0 0 1px var(--bd)}',
    '.menu button{display:flex;align-items:center;gap:8px;width:100%;padding:9px 10px;border:0;border-radius:8px;background:none;text-align:start}',
    '.menu button:hover{background:var(--sf)}',
    '.menu svg{width:16px;height:16px}',
    '.dots{stroke-width:3.2}',
    '.status{display:flex;align-items:center;gap:8px;padding:8px 16px;background:var(--sf);border-bottom:1px solid var(--bd);font-size:12.5px;flex:none}',
    '.status::before{content:"";width:8px;height:8px;border-radius:50%;background:#f59e0b;flex:none}',
    '.status.live::before{background:#22c55e}',

    /* transcript */
    '.scroll{flex:1;overflow-y:auto;overscroll-behavior:contain;padding:18px 14px 10px}',
    '.log{display:flex;flex-direction:column;gap:8px}',
    '.msg{display:flex;flex-direction:column;align-items:flex-start;max-width:86%;animation:pw-in .2s ease-out}',
    '.msg.visitor{align-self:flex-end;align-items:flex-end}',
    '.msg.system{align-self:center;max-width:92%}',
    '.bubble{padding:9px 13px;border-radius:18px;background:var(--sf);white-space:pre-wrap;overflow-wrap:anywhere}',
    '.bubble:empty{display:none}',
    '.bubble a{color:inherit;text-decoration:underline;text-underline-offset:2px}',
    '.assistant .bubble,.agent .bubble{border-end-start-radius:6px}',
    '.visitor .bubble{background:var(--a);color:var(--on);border-end-end-radius:6px}',
    '.visitor.pending .bubble{opacity:.7}',
    '.agent .bubble{box-shadow:inset 3px 0 0 var(--a)}',
    '[dir=rtl] .agent .bubble{box-shadow:inset -3px 0 0 var(--a)}',
    '.system .bubble{background:none;padding:2px 8px;color:var(--mu);font-size:12.5px;text-align:center}',
    '.who{margin:0 6px 3px;font-size:11.5px;color:var(--mu)}',
    '.rate{display:flex;gap:2px;margin:2px 4px 0}',
    '.rate button{padding:2px 6px;border:1px solid transparent;border-radius:8px;background:none;font-size:13px;line-height:1.2;opacity:.6;filter:grayscale(1)}',
    '.rate button:hover,.rate button:focus-visible{opacity:1}',
    '.rate button[aria-pressed=true]{opacity:1;filter:none;border-color:var(--bd);background:var(--sf)}',
    '.sources{display:flex;flex-wrap:wrap;gap:2px 10px;margin:6px 6px 0;font-size:12px;color:var(--mu)}',
    '.sources a{color:var(--tx)}',
    '.cards{display:flex;flex-direction:column;gap:8px;width:100%;min-width:220px;margin-top:8px}',
    '.card{padding:10px 12px;border:1px solid var(--bd);border-radius:14px;background:var(--bg)}',
    '.card .name{font-weight:600}',
    '.card .facts{font-size:12.5px;color:var(--mu)}',
    '.card .desc{margin-top:4px;font-size:12.5px;color:var(--mu);display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}',
    '.card .links{display:flex;gap:14px;margin-top:6px;font-size:13px;font-weight:600}',
    '.card a{color:var(--tx)}',
    '.notice{align-self:center;max-width:92%;padding:6px 12px;border-radius:999px;background:var(--sf);color:var(--mu);font-size:12.5px;text-align:center}',
    '.typing{align-self:flex-start;display:flex;gap:4px;padding:13px 14px;border-radius:18px;border-end-start-radius:6px;background:var(--sf)}',
    '.typing i{width:7px;height:7px;border-radius:50%;background:var(--mu);animation:pw-dot 1.2s infinite ease-in-out}',
    '.typing i:nth-child(2){animation-delay:.15s}',
    '.typing i:nth-child(3){animation-delay:.3s}',
    '@keyframes pw-dot{0%,60%,100%{opacity:.35;transform:none}30%{opacity:1;transform:translateY(-3px)}}',
    '@keyframes pw-in{from{opacity:0;transform:translateY(6px)}}',

    /* pre-chat form */
    '.prechat{display:flex;flex-direction:column;gap:10px;margin-top:12px;padding:14px;border:1px solid var(--bd);border-radius:16px;background:var(--bg)}',
    '.prechat p{margin:0}',
    '.prechat label{display:flex;flex-direction:column;gap:4px;font-size:12.5px;font-weight:600;color:var(--mu)}',
    '.prechat input{padding:9px 11px;border:1px solid var(--bd);border-radius:10px;background:var(--bg);color:var(--tx);font-size:14px;font-weight:400}',
    '.prechat input:focus{outline:2px solid var(--a);outline-offset:-1px}',
    '.btn{padding:10px 14px;border:0;border-radius:10px;background:var(--a);color:var(--on);font-weight:600}',

    /* bottom: chips, errors, handoff, composer */
    '.chips{display:flex;flex-wrap:wrap;justify-content:flex-end;gap:6px;padding:2px 14px 10px}',
    '.chip{padding:6px 12px;border:1px solid var(--a);border-radius:999px;background:var(--bg);font-size:13px}',
    '.chip:hover{background:var(--a);color:var(--on)}',
    '.error{display:flex;align-items:flex-start;gap:8px;margin:0 12px 8px;padding:8px;padding-inline-start:12px;border-radius:12px;background:#fef2f2;color:#991b1b;font-size:13px}',
    '.error span{flex:1;padding-top:1px}',
    '.error button{border:0;background:none;color:inherit;padding:0;border-radius:6px}',
    '.error svg{width:16px;height:16px}',
    '.bar{display:flex;justify-content:center;padding:0 12px 8px}',
    '.agent-typing{padding:0 16px 6px;color:var(--mu);font-size:12.5px;font-style:italic}',
    '.human{display:flex;align-items:center;gap:6px;padding:6px 12px;border:1px solid var(--bd);border-radius:999px;background:var(--bg);font-size:12.5px}',
    '.human:hover{border-color:var(--a)}',
    '.human svg{width:15px;height:15px}',
    '.signin{margin:0 12px 12px;padding:10px 12px;border-radius:12px;background:var(--sf);color:var(--mu);text-align:center;font-size:13px}',
    '.composer{position:relative;display:flex;align-items:flex-end;gap:8px;margin:0 12px 8px;padding:6px;padding-inline-start:14px;border:1px solid var(--bd);border-radius:16px;background:var(--bg);flex:none}',
    '.composer:focus-within{border-color:var(--a);box-shadow:0 0 0 1px var(--a)}',
    '.composer textarea{flex:1;min-height:36px;max-height:140px;padding:8px 0;border:0;outline:0;resize:none;background:transparent;font-size:14px;line-height:1.45}',
    '.composer textarea::placeholder{color:var(--mu)}',
    '.send{display:grid;place-items:center;width:36px;height:36px;border:0;border-radius:12px;background:var(--a);color:var(--on);flex:none;transition:opacity .15s}',
    '.send:disabled{opacity:.35}',
    '.count{position:absolute;inset-inline-end:10px;top:-20px;font-size:11px;color:var(--mu)}',
    '.count.over{color:#b91c1c}',
    '.flat .composer{margin:0;border:0;border-top:1px solid var(--bd);border-radius:0;padding:8px;padding-inline:16px 10px;box-shadow:none}',
    '.flat .send{border-radius:8px}',
    '.pill .composer{border-radius:28px;padding-inline-start:18px}',
    '.pill .send{border-radius:50%}',
    '.foot{padding:0 0 8px;text-align:center;font-size:11px;color:var(--mu);flex:none}',
    '.flat .foot{padding-top:4px}',

    /* proactive bubble */
    '.proactive{position:fixed;z-index:2147483000;bottom:90px;right:20px;display:flex;align-items:flex-start;gap:10px;max-width:300px;padding:12px;padding-inline:14px 8px;border-radius:16px;background:var(--bg);color:var(--tx);box-shadow:0 10px 36px rgba(15,23,42,.2),0 0 0 1px rgba(15,23,42,.07);animation:pw-in .25s ease-out}',
    '.left .proactive{right:auto;left:20px}',
    '.proactive img{width:30px;height:30px;border-radius:50%;object-fit:cover}',
    '.proactive .text{flex:1;padding:0;border:0;background:none;text-align:start;white-space:pre-wrap;overflow-wrap:anywhere}',
    '.proactive .dismiss{padding:2px;border:0;border-radius:6px;background:none;color:var(--mu)}',
    '.proactive .dismiss svg{width:16px;height:16px}',

    /* phones: the panel takes the whole screen; the composer stays above the keyboard */
    '@media (max-width:479px){' +
      '.panel,.compact .panel,.expanded .panel{inset:0;width:100%;height:100vh;height:100dvh;max-height:none;border-radius:0}' +
      '.is-open .launcher{display:none}' +
      '.proactive{left:12px;right:12px;max-width:none}' +
      '.composer textarea{font-size:16px}' + // below 16px iOS zooms into the field
    '}',
    '@media (prefers-reduced-motion:reduce){.pw *{animation:none!important;transition:none!important}}'
  ].join('\n');

  // ------------------------------------------------------------------ mount

  function mount() {
    if (!document.body || !document.body.attachShadow) return false;
    var b = S.brand;
    var cfg = S.cfg;
    var title = ownText(b.title, 'title') || String(cfg.name || t('chat'));
    var launcherStyle = pick(b.launcher, ['bubble', 'tab', 'icon'], 'bubble');
    var launcherText = ownText(b.launcher_text, 'launcher');
    ui.label = launcherText || t('launcher');

    var host = document.createElement('parley-widget'); // an unknown tag: host-page rules for div etc. miss it
    host.id = 'parley-widget';
    var shadow = host.attachShadow({ mode: 'open' });
    try {
      // A constructed stylesheet is not blocked by a page CSP without 'unsafe-inline' styles.
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      shadow.adoptedStyleSheets = [sheet];
    } catch (e) {
      shadow.appendChild(h('style', { text: CSS }));
    }

    var root = ui.root = h('div', {
      class: ['pw', pick(b.position, ['left', 'right'], 'right'), pick(b.layout, ['standard', 'compact', 'expanded'], 'standard'),
        pick(b.composer_style, ['rounded', 'flat', 'pill'], 'rounded'), launcherStyle === 'tab' ? 'tabmode' : ''].join(' '),
      'data-theme': pick(b.theme, Object.keys(THEMES), 'crisp'),
      lang: lang,
      dir: RTL.indexOf(lang) >= 0 ? 'rtl' : 'ltr'
    });
    applyTheme(root);
    if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener('change', function () { applyTheme(root); });

    // Header: logo (or avatar), title and subtitle, up to three agent avatars, menu, close.
    var team = (Array.isArray(b.agent_avatars) ? b.agent_avatars : []).slice(0, 3).map(function (src) { return img(src); }).filter(Boolean);
    ui.more = h('button', { class: 'hbtn', type: 'button', 'aria-label': t('more'), 'aria-expanded': 'false', 'aria-controls': 'pw-menu', hidden: true, onclick: function () { toggleMenu(); } }, [icon('more', 'dots')]);
    ui.reset = h('button', { type: 'button', 'data-parley': 'reset', onclick: newChat }, [icon('plus'), t('new_chat')]);
    ui.menu = h('div', { class: 'menu', id: 'pw-menu', hidden: true }, [ui.reset]);
    ui.closeBtn = h('button', { class: 'hbtn', type: 'button', 'aria-label': t('close'), onclick: function () { setOpen(false, true); } }, [icon('close')]);
    var head = h('div', { class: 'head' }, [
      img(b.logo_url || b.avatar_url, 'logo'),
      h('div', { class: 'titles' }, [
        h('h2', { class: 'title', text: title }),
        b.subtitle ? h('div', { class: 'subtitle', text: ownText(b.subtitle, 'subtitle') }) : null
      ]),
      team.length ? h('div', { class: 'team' }, team) : null,
      ui.more,
      ui.closeBtn,
      ui.menu
    ]);

    ui.status = h('div', { class: 'status', 'data-parley': 'status', role: 'status', hidden: true });

    // Transcript: the welcome message (local, never stored) then the conversation.
    ui.log = h('div', { class: 'log', 'data-parley': 'transcript', role: 'log', 'aria-live': 'polite', 'aria-label': t('messages') });
    if (cfg.welcome_message) {
      var welcome = h('div', { class: 'bubble', dir: 'auto' });
      fill(welcome, ownText(cfg.welcome_message, 'welcome'));
      ui.welcome = h('div', { class: 'msg assistant welcome' }, [welcome]);
      ui.log.appendChild(ui.welcome);
    }
    ui.typing = h('div', { class: 'typing', 'data-parley': 'typing' }, [h('span', { class: 'sr', text: t('typing') }), h('i'), h('i'), h('i')]);
    ui.prechat = prechatForm();
    ui.scroll = h('div', { class: 'scroll' }, [ui.log, ui.prechat]);

    var quick = (Array.isArray(b.quick_replies) ? b.quick_replies : []).filter(function (t) { return typeof t === 'string' && t.trim(); }).slice(0, 8);
    ui.chips = h('div', { class: 'chips', role: 'group', 'aria-label': t('suggested'), hidden: true }, quick.map(function (text) {
      return h('button', { class: 'chip', type: 'button', 'data-parley': 'quick-reply', text: text, onclick: function () { send(text); focusComposer(); } });
    }));

    ui.errorText = h('span');
    ui.error = h('div', { class: 'error', 'data-parley': 'error', role: 'alert', hidden: true }, [
      ui.errorText,
      h('button', { type: 'button', 'aria-label': t('dismiss'), onclick: clearError }, [icon('close')])
    ]);

    ui.human = h('button', { class: 'human', type: 'button', 'data-parley': 'handoff', hidden: true, onclick: requestHuman }, [icon('person'), t('human')]);
    ui.agentTyping = h('div', { class: 'agent-typing', 'data-parley': 'agent-typing', 'aria-live': 'polite', hidden: true });
    ui.bar = h('div', { class: 'bar' }, [ui.human]);
    ui.signin = h('p', { class: 'signin', hidden: true, text: t('sign_in') });
    ui.refused = h('p', { class: 'signin', 'data-parley': 'identity-refused', role: 'alert', hidden: true, text: t('identity_refused') });

    ui.ta = h('textarea', {
      id: 'pw-input', 'data-parley': 'composer', rows: '1', maxlength: String(MAX_CHARS), placeholder: t('placeholder'),
      'aria-describedby': 'pw-count', enterkeyhint: 'send'
    });
    ui.count = h('span', { class: 'count', id: 'pw-count', hidden: true });
    ui.send = h('button', { class: 'send', type: 'submit', 'data-parley': 'send', 'aria-label': t('send'), disabled: true }, [icon('send')]);
    ui.composer = h('form', { class: 'composer' }, [h('label', { class: 'sr', for: 'pw-input', text: t('message') }), ui.ta, ui.count, ui.send]);
    ui.composer.addEventListener('submit', function (e) {
      e.preventDefault();
      submit();
    });
    ui.ta.addEventListener('input', composerChanged);
    ui.ta.addEventListener('input', visitorTyped);
    ui.ta.addEventListener('keydown', function (e) {
      // Enter sends, Shift+Enter is a new line; never while an IME is composing a character.
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        submit();
      }
    });

    ui.panel = h('div', { class: 'panel', id: 'pw-panel', 'data-parley': 'panel', role: 'dialog', 'aria-label': title }, [
      head, ui.status, ui.scroll, ui.agentTyping, ui.error, ui.chips, ui.bar, ui.signin, ui.refused, ui.composer,
      // The workspace's brand line; a white-label workspace sets it empty and shows none.
      cfg.powered_by ? h('div', { class: 'foot', 'data-parley': 'powered-by', text: t('powered_by', { name: cfg.powered_by }) }) : null
    ]);
    root.addEventListener('keydown', function (e) {
      if (e.key !== 'Escape' || !S.open) return;
      e.stopPropagation();
      if (!ui.menu.hidden) {
        toggleMenu(false);
        ui.more.focus();
      } else {
        setOpen(false, true);
      }
    });
    ui.panel.addEventListener('click', function (e) {
      if (!ui.menu.hidden && !ui.menu.contains(e.target) && !ui.more.contains(e.target)) toggleMenu(false);
    });

    ui.badge = h('span', { class: 'badge', 'aria-hidden': 'true', hidden: true });
    ui.launcher = h('button', {
      class: 'launcher l-' + launcherStyle + (launcherStyle === 'bubble' && !launcherText ? ' round' : ''),
      type: 'button', 'data-parley': 'launcher', 'aria-controls': 'pw-panel', 'aria-expanded': 'false',
      onclick: function () { setOpen(!S.open, true); }
    }, [
      icon('chat', 'chat'),
      icon('close', 'x'),
      launcherText && launcherStyle !== 'icon' ? h('span', { class: 'label', text: launcherText }) : null,
      ui.badge
    ]);

    ui.bubbleText = h('button', { class: 'text', type: 'button', onclick: function () { setOpen(true, true); } });
    ui.bubble = h('div', { class: 'proactive', 'data-parley': 'proactive', role: 'status', hidden: true }, [
      img(b.avatar_url || b.logo_url),
      ui.bubbleText,
      h('button', { class: 'dismiss', type: 'button', 'aria-label': t('dismiss'), onclick: hideBubble }, [icon('close')])
    ]);

    root.appendChild(ui.bubble);
    root.appendChild(ui.panel);
    root.appendChild(ui.launcher);
    shadow.appendChild(root);
    document.body.appendChild(host);

    shadow.addEventListener('pointerdown', unlockAudio);
    shadow.addEventListener('keydown', unlockAudio);
    if (window.visualViewport) window.visualViewport.addEventListener('resize', fitViewport);
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('online', onVisibility);
    window.addEventListener('storage', onStorage);

    renderBadge();
    renderChrome();
    return true;
  }

  function prechatForm() {
    var pc = S.cfg.prechat || {};
    var auto = { name: 'name', email: 'email', phone: 'tel' };
    var form = h('form', { class: 'prechat', 'data-parley': 'prechat', 'aria-label': t('before_start'), hidden: true, novalidate: true });
    if (pc.greeting) form.appendChild(h('p', { text: String(pc.greeting) }));
    (Array.isArray(pc.fields) ? pc.fields : []).forEach(function (f, i) {
      if (!f || !f.field) return;
      var input = h('input', {
        id: 'pw-f' + i, name: String(f.field), type: pick(f.type, ['text', 'email', 'tel'], 'text'),
        autocomplete: auto[f.field] || 'on', required: !!f.required, maxlength: f.field === 'phone' ? '64' : '255' // the server's limits
      });
      form.appendChild(h('label', { for: 'pw-f' + i }, [
        h('span', null, [String(f.label || f.field), f.required ? h('span', { 'aria-hidden': 'true', text: ' *' }) : null]),
        input
      ]));
    });
    form.appendChild(h('button', { class: 'btn', type: 'submit', text: t('start_chat') }));
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var values = {};
      var invalid = null;
      Array.prototype.forEach.call(form.querySelectorAll('input'), function (input) {
        var v = input.value.trim();
        input.setCustomValidity(input.required && !v ? t('required') : '');
        if (!invalid && !input.checkValidity()) invalid = input;
        if (v) values[input.name] = v;
      });
      if (invalid) {
        invalid.reportValidity();
        invalid.focus();
        return;
      }
      save(local, 'prechat', JSON.stringify(values));
      renderChrome();
      focusComposer();
    });
    return form;
  }

  // ------------------------------------------------------------------ behaviour

  function needPrechat() {
    var pc = S.cfg && S.cfg.prechat;
    return !!(pc && pc.enabled && !load(local, 'prechat') && !S.conv && !S.order.length);
  }

  // Show and hide the parts around the transcript to match the current state.
  function renderChrome() {
    if (!ui.root) return;
    var identityBlocked = !!(S.cfg.identity_required && (!S.identity || S.identityRefused));
    var prechat = needPrechat() && !identityBlocked;
    var visitorSpoke = S.order.some(function (r) { return r.role === 'visitor'; });
    ui.prechat.hidden = !prechat;
    ui.composer.hidden = prechat || identityBlocked;
    ui.signin.hidden = !identityBlocked || S.identityRefused;
    ui.refused.hidden = !identityBlocked || !S.identityRefused;
    ui.chips.hidden = visitorSpoke || prechat || identityBlocked || !ui.chips.children.length;
    ui.human.hidden = !(S.conv && (S.handoff || 'bot_active') === 'bot_active' && S.status !== 'closed' && S.status !== 'agent');
    ui.more.hidden = !S.conv;
    if (!S.conv) toggleMenu(false);
    renderStatus();
    // While waiting for an agent, the estimate counts down.
    var counting = S.handoff === 'handoff_pending' && S.waitUntil;
    if (counting && !S.tick) S.tick = setInterval(renderStatus, 1000);
    if (!counting && S.tick) {
      clearInterval(S.tick);
      S.tick = 0;
    }
    composerChanged();
  }

  function statusText() {
    if (S.handoff === 'human_connected') return t('with_person');
    if (S.handoff !== 'handoff_pending') return '';
    if (S.queuePosition) return t('queue_position', { n: S.queuePosition });
    if (!S.waitUntil) return t('waiting');
    var left = (S.waitUntil - Date.now()) / 1000;
    return left > 0 ? t('waiting_min', { n: Math.ceil(left / 60) }) : t('waiting_soon');
  }

  function renderStatus() {
    var text = statusText();
    if (ui.status.textContent !== text) ui.status.textContent = text;
    ui.status.hidden = !text;
    ui.status.classList.toggle('live', S.handoff === 'human_connected');
  }

  function composerChanged() {
    var ta = ui.ta;
    var len = ta.value.length;
    ui.send.disabled = !ta.value.trim() || blocked();
    ui.count.hidden = len < COUNTER_FROM;
    ui.count.textContent = len + ' / ' + MAX_CHARS;
    ui.count.classList.toggle('over', len >= MAX_CHARS);
    // Grow with the text up to the CSS max-height.
    ta.style.height = 'auto';
    if (ta.scrollHeight) ta.style.height = ta.scrollHeight + 'px';
  }

  function submit() {
    if (!send(ui.ta.value)) return;
    ui.ta.value = '';
    composerChanged();
    visitorTyped();
  }

  function requestHuman() {
    if (!S.conv) return;
    ui.human.disabled = true;
    request('POST', '/handoff', { visitor_id: S.visitor, conversation_id: S.conv }).then(function (r) {
      if (!r.ok || !r.data) return showError(errorText(r));
      setState(r.data);
      // After business hours: the workspace's offline message, and a form to leave an email.
      if (r.data.offline && r.data.offline_message) notice(String(r.data.offline_message));
      if (r.data.offline) askEmail();
      focusComposer(); // the button is gone now
    }, function () {
      showError(t('unreachable'));
    }).finally(function () { ui.human.disabled = false; });
  }

  // The after-hours form: the email goes with the handoff (`email`), where an agent's later reply
  // the visitor does not see is sent (the offline follow-up). One form at a time.
  function askEmail() {
    if (ui.log.querySelector('[data-parley="email"]')) return;
    var conv = S.conv;
    var input = h('input', { id: 'pw-email', name: 'email', type: 'email', autocomplete: 'email', required: true, maxlength: '255' });
    var button = h('button', { class: 'btn', type: 'submit', text: t('email_send') });
    var form = h('form', { class: 'prechat', 'data-parley': 'email', 'aria-label': t('email_label'), novalidate: true }, [
      h('label', { for: 'pw-email' }, [h('span', { text: t('email_label') }), input]),
      button
    ]);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var email = input.value.trim();
      input.setCustomValidity(email ? '' : t('required'));
      if (!input.checkValidity()) {
        input.reportValidity();
        return input.focus();
      }
      button.disabled = true;
      request('POST', '/handoff', { visitor_id: S.visitor, conversation_id: conv, email: email }).then(function (r) {
        if (!r.ok) return showError(errorText(r));
        form.remove();
        notice(t('email_saved', { email: email }));
      }, function () {
        showError(t('unreachable'));
      }).finally(function () { button.disabled = false; });
    });
    keepBottom(function () { ui.log.insertBefore(form, ui.typing.parentNode ? ui.typing : null); });
    if (S.open) setTimeout(function () { input.focus({ preventScroll: true }); }, 0);
  }

  function toggleMenu(open) {
    if (!ui.menu) return;
    if (open == null) open = ui.menu.hidden;
    ui.menu.hidden = !open;
    ui.more.setAttribute('aria-expanded', String(open));
    if (open) ui.reset.focus();
  }

  function setOpen(open, moveFocus) {
    if (!ui.panel) return;
    S.open = open;
    ui.root.classList.toggle('is-open', open);
    ui.panel.classList.toggle('open', open);
    ui.launcher.setAttribute('aria-expanded', String(open));
    save(session, 'open', open ? '1' : null);
    if (open) {
      S.unread = 0;
      hideBubble();
      toBottom();
      composerChanged(); // the textarea can be measured now
      if (moveFocus) focusComposer();
    } else {
      toggleMenu(false);
      if (moveFocus) ui.launcher.focus();
    }
    fitViewport();
    renderBadge();
  }

  function focusComposer() {
    if (!S.open) return;
    var target = !ui.prechat.hidden ? ui.prechat.querySelector('input, button') : !ui.composer.hidden ? ui.ta : ui.closeBtn;
    setTimeout(function () { target.focus({ preventScroll: true }); }, 0);
  }

  function renderBadge() {
    ui.badge.textContent = S.unread > 9 ? '9+' : String(S.unread);
    ui.badge.hidden = !S.unread || S.open;
    ui.launcher.setAttribute('aria-label', S.open ? t('close') : S.unread ? t('unread', { label: ui.label, n: S.unread }) : ui.label);
  }

  function showError(text) {
    ui.errorText.textContent = text;
    ui.error.hidden = false;
  }

  function clearError() {
    if (!ui.error) return;
    ui.error.hidden = true;
    ui.errorText.textContent = '';
  }

  function nearBottom() {
    var s = ui.scroll;
    return !s || s.scrollHeight - s.scrollTop - s.clientHeight < 80;
  }

  function toBottom() {
    if (ui.scroll) ui.scroll.scrollTop = ui.scroll.scrollHeight;
  }

  function keepBottom(fn) {
    var near = nearBottom();
    fn();
    if (near) toBottom();
  }

  // On phones the visual viewport shrinks when the keyboard opens; size the panel to it.
  function fitViewport() {
    var vv = window.visualViewport;
    var style = ui.panel.style;
    if (vv && S.open && window.matchMedia('(max-width: 479px)').matches) {
      style.height = vv.height + 'px';
      style.top = vv.offsetTop + 'px';
      style.bottom = 'auto';
    } else {
      style.height = style.top = style.bottom = '';
    }
  }

  function onVisibility() {
    if (document.hidden) {
      S.hiddenAt = Date.now();
      return;
    }
    S.hiddenAt = 0;
    ensureBeat(true);
    catchUp();
  }

  // Another tab of this site started or reset a conversation: follow it (without writing storage back).
  function onStorage(e) {
    if (e.key !== PREFIX + 'conversation' || e.newValue === S.conv) return;
    clearConversation(false);
    if (e.newValue) {
      setConversation(e.newValue, false);
      catchUp();
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
