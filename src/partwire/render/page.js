"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const pages = Array.from(document.querySelectorAll("#transcript .page"));
  let current = 0;
  let showingAll = false;

  // -- views and the focused toggle ---------------------------------------------------------
  // Each view keeps its own scroll position.
  const scrolled = { transcript: 0, projection: 0 };
  let shown = "transcript";
  function view(name) {
    if (name === shown) return;
    scrolled[shown] = window.scrollY;
    shown = name;
    for (const which of ["transcript", "projection"]) {
      $(which).hidden = which !== name;
      $("tab-" + which).setAttribute("aria-selected", String(which === name));
    }
    $("pager").hidden = name !== "transcript" || pages.length < 2;
    if (name === "projection") showProjection();
    window.scrollTo(0, scrolled[name]);
  }
  $("tab-transcript").addEventListener("click", () => view("transcript"));
  $("tab-projection").addEventListener("click", () => view("projection"));
  $("focused").addEventListener("change", (e) => document.body.classList.toggle("focused", e.target.checked));

  // -- pages --------------------------------------------------------------------------------
  function showPage(n) {
    current = Math.max(0, Math.min(pages.length - 1, n));
    showingAll = false;
    pages.forEach((p, i) => { p.hidden = i !== current; });
    window.scrollTo(0, 0);
    $("page-info").textContent = "page " + (current + 1) + " of " + pages.length;
    $("show-all").textContent = "show all";
  }
  $("prev").addEventListener("click", () => showPage(current - 1));
  $("next").addEventListener("click", () => showPage(current + 1));
  $("show-all").addEventListener("click", () => {
    if (showingAll) { showPage(current); return; }
    showingAll = true;
    pages.forEach((p) => { p.hidden = false; });
    $("page-info").textContent = "all " + pages.length + " pages";
    $("show-all").textContent = "one page at a time";
  });
  if (pages.length > 1) $("pager").hidden = false;

  function goTo(id) {
    const el = $(id);
    if (!el) return;
    const page = el.closest(".page");
    if (page && page.hidden) showPage(pages.indexOf(page));
    view("transcript");
    for (let d = el.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    el.scrollIntoView({ block: "center" });
    el.classList.remove("flash");
    void el.offsetWidth;
    el.classList.add("flash");
  }
  document.addEventListener("click", (e) => {
    const link = e.target.closest("a[data-target]");
    if (link) { e.preventDefault(); goTo(link.dataset.target); return; }
    const ask = e.target.closest("button[data-turn]");
    if (ask) {
      $("turn").value = ask.dataset.turn;
      scrolled.projection = 0;
      if (shown === "projection") showProjection(); else view("projection");
    }
  });

  // -- projections --------------------------------------------------------------------------
  const source = $("partwire-projections");
  const data = source ? JSON.parse(source.textContent) : null;
  let adapter = data && data.adapters.length ? data.adapters[0] : null;
  const LAST = 100;
  let wholeBody = false;
  $("whole-body").addEventListener("click", () => { wholeBody = true; showProjection(); });

  // A turn's record holds changes to the turn before: keys set or dropped, and for a list (the
  // wire messages, the losses) how many items it keeps and what follows. A list is rebuilt from
  // the end, so each turn costs its own length, not the history's length times its turns.
  function rebuild(records, turn, own, key) {
    const pieces = [];
    let need = Infinity;
    for (let r = turn; r >= 0 && need > 0; r--) {
      const record = records[r];
      if (record.error !== undefined) break;
      const whole = own(record, key);
      if (whole.base !== undefined) { pieces.push(whole.base.slice(0, need)); break; }
      if (whole.keep === undefined) continue;
      if (need > whole.keep) pieces.push(whole.tail.slice(0, need - whole.keep));
      need = Math.min(need, whole.keep);
    }
    const out = [];  // not concat(...pieces): a long session has more pieces than a call takes arguments
    for (let i = pieces.length - 1; i >= 0; i--) for (const item of pieces[i]) out.push(item);
    return out;
  }
  const listOf = (record, key) => {
    if (record.drop && record.drop.includes(key)) return { base: [] };
    if (record.set && key in record.set) return { base: record.set[key] };
    return record.lists && record.lists[key] ? record.lists[key] : {};
  };
  const lossesOf = (record) => record.losses;

  function stateAt(name, turn) {
    const records = data.bodies[name];
    const record = records[turn];
    if (record.error !== undefined) return { body: null, losses: [], record: record };
    let body = {};
    const lists = new Set();
    for (let r = 0; r <= turn; r++) {
      const each = records[r];
      if (each.error !== undefined) { body = {}; lists.clear(); continue; }
      for (const key of each.drop || []) { delete body[key]; lists.delete(key); }
      for (const key of Object.keys(each.set || {})) {
        body[key] = Array.isArray(each.set[key]) ? null : each.set[key];
        if (Array.isArray(each.set[key])) lists.add(key); else lists.delete(key);
      }
      for (const key of Object.keys(each.lists || {})) { if (!(key in body)) body[key] = null; lists.add(key); }
    }
    for (const key of lists) body[key] = rebuild(records, turn, listOf, key);
    return { body: body, losses: rebuild(records, turn, lossesOf), record: record };
  }

  function clearMarks() {
    document.querySelectorAll(".loss-badge").forEach((b) => b.remove());
    document.querySelectorAll(".lossy").forEach((el) => el.classList.remove("lossy"));
  }

  function mark(name, losses) {
    clearMarks();
    for (const loss of losses) {
      if (loss[4] === null) continue;
      const el = (loss[5] !== null && $("e" + loss[4] + "p" + loss[5])) || $("e" + loss[4]);
      if (!el) continue;
      el.classList.add("lossy");
      const badge = document.createElement("span");
      badge.className = "loss-badge";
      badge.textContent = name + ": " + loss[2] + " \u2014 " + loss[3];
      el.prepend(badge);
    }
  }

  function showProjection() {
    if (!data) return;
    const turn = Number($("turn").value);
    const buttons = $("adapters");
    buttons.textContent = "";
    for (const name of data.adapters) {
      const s = stateAt(name, turn);
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("aria-selected", String(name === adapter));
      b.textContent = name + (s.body ? " \u00b7 " + s.losses.length + " lost" : " \u00b7 refused");
      b.addEventListener("click", () => { adapter = name; showProjection(); });
      buttons.append(b);
    }
    const s = stateAt(adapter, turn);
    const record = s.record;
    $("model-note").textContent = "model " + record.model +
      (record.standin ? " (a stand-in: no turn of the history names one of this provider's models)" : "");
    const list = $("losses");
    list.textContent = "";
    if (record.error !== undefined) {
      const li = document.createElement("li");
      li.textContent = "cannot project: " + record.error;
      list.append(li);
    } else if (!s.losses.length) {
      const li = document.createElement("li");
      li.className = "lossless";
      li.textContent = "lossless: every part is sent as it is";
      list.append(li);
    }
    for (const loss of s.losses) {
      const li = document.createElement("li");
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = loss[2];
      li.append(badge, " ");
      if (loss[4] !== null) {
        const a = document.createElement("a");
        a.href = "#";
        a.dataset.target = loss[5] !== null ? "e" + loss[4] + "p" + loss[5] : "e" + loss[4];
        a.textContent = loss[0];
        li.append(a);
      } else {
        li.append(loss[0]);
      }
      li.append(" (" + loss[1] + "): " + loss[3]);
      list.append(li);
    }
    // A long session's body is shown by its last wire messages until the whole is asked for:
    // laying out megabytes of JSON takes the browser seconds.
    let shownBody = s.body;
    const long = s.body && !wholeBody &&
      Object.keys(s.body).find((key) => Array.isArray(s.body[key]) && s.body[key].length > LAST);
    $("whole-body").hidden = !long;
    $("body-note").textContent = long
      ? "Showing the last " + LAST + " of the " + s.body[long].length + " items of \u201c" + long + "\u201d."
      : "";
    if (long) {
      shownBody = Object.assign({}, s.body);
      shownBody[long] = s.body[long].slice(-LAST);
    }
    // Long strings are stored once, as NUL and their index in data.strings.
    const unpool = (key, value) =>
      typeof value === "string" && value.charCodeAt(0) === 0 ? data.strings[Number(value.slice(1))] : value;
    $("body").textContent = shownBody ? JSON.stringify(shownBody, unpool, 2) : "";
    mark(adapter, s.losses);
  }
  if (!data) {  // rendered without the projection view
    $("tab-projection").hidden = true;
    document.querySelectorAll("button[data-turn]").forEach((b) => { b.hidden = true; });
  } else {
    const select = $("turn");
    data.turns.forEach((t, i) => {
      const o = document.createElement("option");
      o.value = String(i);
      o.textContent = t.event === null ? t.label : "before " + t.label;
      select.append(o);
    });
    select.value = String(data.turns.length - 1);
    select.addEventListener("change", showProjection);
  }
  showPage(0);
})();
