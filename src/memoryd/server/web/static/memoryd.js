// memoryd web UI: menu, tabs, the profile panel, dialogs, confirmations, editing and a
// memory's detail (the chat page's own script is chat.js).
// No build step, no dependencies.
"use strict";

function csrfToken() { return document.body.dataset.csrf || ""; }

// The scripts' words in the page's language: base.html gives their translations
// (memoryd.server.web.i18n.SCRIPT_WORDS) by their English, which shows when one is
// missing. %(name)s is filled from `vars`; tn picks a plural's form for `num`.
const WORDS = JSON.parse((document.getElementById("i18n") || {}).textContent || "{}");

function fill(text, vars) {
  return text.replace(/%\((\w+)\)[sd]/g, (whole, name) => (vars && name in vars ? String(vars[name]) : whole));
}

function t(english, vars) {
  return fill(typeof WORDS[english] === "string" ? WORDS[english] : english, vars);
}

function tn(singular, plural, num, vars) {
  const forms = WORDS[singular] || { one: singular, other: plural };
  const form = new Intl.PluralRules(document.documentElement.lang || "en").select(num);
  return fill(forms[form] || forms.other, { ...vars, num });
}

// Controls that open something (the profile, a tab, a memory's edit form or detail, the
// menu) are links in the page, so they work without JavaScript: the server renders the
// page with that thing open. Here they act in place instead, as buttons: role=button,
// Space presses them, and a plain click runs `action` (a click that opens a new tab or
// window still follows the link).
function plainClick(event) {
  return event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey;
}

function linkButton(link, action) {
  link.setAttribute("role", "button");
  link.addEventListener("click", (event) => {
    if (!plainClick(event)) return;
    event.preventDefault();
    action(event);
  });
  link.addEventListener("keydown", (event) => {
    if (event.key === " ") { event.preventDefault(); action(event); }
  });
}

// The page's address without what the server opened (edit=, detail=): from here on the
// script opens and closes things, and a reload should not bring them back.
function forgetOpeners() {
  // a page that answered a form post (a new API key) names its own address, so a reload
  // asks for that page instead of sending the form again
  if (document.body.dataset.address) {
    window.history.replaceState(null, "", document.body.dataset.address);
    return;
  }
  const url = new URL(window.location.href);
  if (!url.searchParams.has("edit") && !url.searchParams.has("detail")) return;
  url.searchParams.delete("edit");
  url.searchParams.delete("detail");
  url.hash = "";
  window.history.replaceState(null, "", url);
}

// Modal dialogs stack (a detail over the profile, a question over either), and Escape
// closes the topmost only. Chromium's own Escape closes, at once, every dialog opened
// with no click or key press between them (the detail and the panel an address opens
// together), so the page takes Escape itself.
let dialogLayers = 0;

function showModal(dialog) {
  dialog.showModal();
  dialog.dataset.layer = String(++dialogLayers);
}

function setupEscape() {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    const menu = document.activeElement && document.activeElement.closest("details.row-menu[open]");
    if (menu) {  // an open row menu closes first, before the dialog it is in
      event.preventDefault();
      closeMenu(menu, true);
      return;
    }
    const open = Array.from(document.querySelectorAll("dialog[open]")).filter((d) => d.matches(":modal"));
    if (!open.length) return;
    event.preventDefault();
    open.sort((a, b) => Number(a.dataset.layer || 0) - Number(b.dataset.layer || 0));
    open[open.length - 1].close();
  });
}

// A memory's row menu (a <details>, so it opens without this script): one open at a
// time, closed by a click elsewhere, by Escape (the focus goes back to its button) and
// once one of its actions is chosen.
function closeMenu(menu, refocus) {
  menu.open = false;
  if (refocus) menu.querySelector("summary").focus();
}

// What gets the focus back for a control inside a row menu: the menu's button once the
// menu is closed, else the control itself.
function focusTarget(control) {
  const menu = control.closest("details.row-menu");
  return menu ? menu.querySelector("summary") : control;
}

function setupMenus() {
  document.addEventListener("toggle", (event) => {
    const menu = event.target;
    if (!(menu instanceof HTMLDetailsElement) || !menu.matches(".row-menu") || !menu.open) return;
    document.querySelectorAll("details.row-menu[open]").forEach((other) => { if (other !== menu) other.open = false; });
  }, true);
  document.addEventListener("click", (event) => {
    document.querySelectorAll("details.row-menu[open]").forEach((menu) => {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });
}

// The navigation: on narrow screens the sidebar is a top bar whose links open with "Menu".
function setupMenu() {
  const button = document.getElementById("menu-button");
  const sidebar = document.getElementById("sidebar");
  if (!button || !sidebar) return;
  function show(open) {
    sidebar.classList.toggle("open", open);
    button.setAttribute("aria-expanded", String(open));
  }
  button.setAttribute("aria-expanded", "false");
  linkButton(button, () => show(button.getAttribute("aria-expanded") !== "true"));
  sidebar.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
      show(false);
      button.focus();
    }
  });
}

// Tabs (WAI-ARIA tabs pattern, automatic activation): click, or arrow keys, Home and End
// on the focused tab. A tab list with data-tab-param keeps the chosen tab in the URL.
function selectTab(tab, moveFocus) {
  const list = tab.closest("[role=tablist]");
  list.querySelectorAll("[role=tab]").forEach((other) => {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    const panel = document.getElementById(other.getAttribute("aria-controls"));
    if (panel) panel.hidden = !selected;
  });
  if (moveFocus) tab.focus();
  const param = list.dataset.tabParam;
  if (param) {
    const url = new URL(window.location.href);
    url.searchParams.set(param, tab.getAttribute("aria-controls").replace(/^admin-/, ""));
    window.history.replaceState(null, "", url);
  }
}

function setupTabs() {
  document.querySelectorAll("[role=tablist]").forEach((list) => {
    const tabs = Array.from(list.querySelectorAll("[role=tab]"));
    tabs.forEach((tab, index) => {
      const panel = document.getElementById(tab.getAttribute("aria-controls"));
      if (panel && !panel.hasAttribute("tabindex")) panel.tabIndex = 0;
      tab.tabIndex = tab.getAttribute("aria-selected") === "true" ? 0 : -1;
      tab.addEventListener("click", (event) => {
        if (!plainClick(event)) return;
        event.preventDefault();  // a link to the page with this tab open, for no script
        selectTab(tab, false);
      });
      tab.addEventListener("keydown", (event) => {
        if (event.key === " ") { event.preventDefault(); selectTab(tab, false); return; }
        const last = tabs.length - 1;
        const to = {
          ArrowRight: (index + 1) % tabs.length,
          ArrowLeft: (index + last) % tabs.length,
          Home: 0,
          End: last,
        }[event.key];
        if (to === undefined) return;
        event.preventDefault();
        selectTab(tabs[to], true);
      });
    });
  });
}

function openProfile(tabName) {
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (dialog.open) dialog.close();
  showModal(dialog);
  const tab = tabName && document.getElementById("tab-" + tabName);
  if (tab) selectTab(tab, false);
}

function setupProfile() {
  const button = document.getElementById("user-button");
  if (button) {
    button.setAttribute("aria-haspopup", "dialog");
    linkButton(button, () => openProfile());
  }
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (document.body.dataset.panel) {  // reopened after a form in the panel was sent
    dialog.removeAttribute("open");
    openProfile(document.body.dataset.panel);
    // nothing had the focus before it opened: closing it goes back to what opens it
    dialog.addEventListener("close", () => {
      const at = document.activeElement;
      if (button && (!at || at === document.body || dialog.contains(at))) button.focus();
    });
  }
  dialog.querySelectorAll("[data-close]").forEach((b) => linkButton(b, () => dialog.close()));
}

// A real confirmation dialog (not window.confirm): forms with data-confirm ask first.
// Cancel has the focus; Escape cancels; the confirm button says what will happen. The
// answer goes with the form (confirmed=yes); without this script the server asks instead.
function setupConfirmations() {
  const dialog = document.getElementById("confirm");
  if (!dialog) return;
  const text = document.getElementById("confirm-text");
  const ok = document.getElementById("confirm-ok");
  // The answer is taken when it is given (a click or Enter on a button), not from the
  // dialog's close event, which can come late: after Escape and a quick second question.
  let pending = null;  // the form whose question is open
  let agreed = null;  // the form the answer said yes to
  // on the document, so a form added later (a new answer's Delete) asks too
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-confirm")) return;
    if (form.dataset.confirmed === "yes") return;
    event.preventDefault();
    pending = form;
    text.textContent = form.dataset.confirm;
    ok.textContent = form.dataset.confirmButton || t("Confirm");
    dialog.returnValue = "";
    showModal(dialog);
    document.getElementById("confirm-cancel").focus();
  });
  dialog.querySelector("form").addEventListener("submit", (event) => {
    agreed = event.submitter && event.submitter.value === "ok" ? pending : null;
    pending = null;
  });
  dialog.addEventListener("close", () => {
    const form = agreed;
    agreed = null;
    if (!form) return;
    form.dataset.confirmed = "yes";
    let yes = form.querySelector("input[name=confirmed]");
    if (!yes) {  // without it the server asks again (its page for browsers without JS)
      yes = document.createElement("input");
      yes.type = "hidden";
      yes.name = "confirmed";
      form.appendChild(yes);
    }
    yes.value = "yes";
    form.requestSubmit();
  });
}

// Editing a memory: a roomy text box under the memory, sized to show all of it.
// A memory is one line, so Enter saves; Escape closes the box without saving.
function fitTextarea(area) {
  area.style.height = "auto";
  area.style.height = Math.max(area.scrollHeight + 4, 88) + "px";
}

function setupEdits() {
  document.querySelectorAll(".edit-toggle").forEach((button) => {
    const form = document.getElementById(button.getAttribute("aria-controls"));
    if (!form) return;
    const area = form.querySelector("textarea");
    const text = button.closest(".memory").querySelector(".memory-text");
    const menu = button.closest("details.row-menu");
    function show(open) {
      // the text is copied in when the box first opens (so it is in the page only once);
      // a box the server opened (edit=) came filled in
      if (open && !area.dataset.filled) { area.value = text.textContent; area.dataset.filled = "yes"; }
      if (menu) menu.open = false;
      form.hidden = !open;
      button.setAttribute("aria-expanded", String(open));
      if (open) { fitTextarea(area); area.focus(); area.setSelectionRange(area.value.length, area.value.length); }
    }
    button.setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) fitTextarea(area);
    linkButton(button, () => show(form.hidden));
    linkButton(form.querySelector("[data-cancel-edit]"), () => { show(false); focusTarget(button).focus(); });
    area.addEventListener("input", () => fitTextarea(area));
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
      if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); show(false); focusTarget(button).focus(); }
    });
  });
  // A refused add or edit comes back with the typed text in its field, and an edit form
  // the address opened comes open: put the cursor at the end of that text.
  const draft = document.querySelector("[data-draft]") || document.querySelector(".edit-form:not([hidden]) textarea");
  if (draft) { draft.focus(); draft.setSelectionRange(draft.value.length, draft.value.length); }
}

// A memory's detail: read from the REST API (the session cookie signs the request) and
// written with textContent only, so nothing in a memory or a chat can become markup.

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function when(iso) {
  if (!iso) return t("never");
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

// A date-only expiry is stored as the next midnight (UTC): show the day the user chose.
function untilText(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  if (d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds()) return when(iso);
  return t("%(day)s (to the end of the day, UTC)", { day: new Date(d.getTime() - 86400000).toISOString().slice(0, 10) });
}

// Where a memory came from, in words (as memory_focus.source_text); who acted is the
// History table's "By".
function sourceText(m) {
  const by = m.created_by || "";
  if (m.source === "extraction") {
    const run = (m.run_id || by.split(":")[1] || "").slice(0, 8) || "?";
    const accepted = by.startsWith("user:") || by.startsWith("admin:");
    const words = { source: "Learned from chats", id: run };  // the source's words are the core's: English
    return accepted ? t("%(source)s (extraction run %(id)s), accepted in review", words) : t("%(source)s (extraction run %(id)s)", words);
  }
  if (m.source === "admin") return "Added by an admin";
  if (m.source === "import") return "Imported from a file";
  return "Added by hand";
}

// A memory's questions in words (as memoryd.extraction.questions.in_words).
function questionsText(questions) {
  if (questions === null || questions === undefined) return "Not asked yet";
  return questions.length ? questions.join(" / ") : "None";
}

function section(body, title) {
  const part = el("section", null, "detail-section");
  part.appendChild(el("h3", title));
  body.appendChild(part);
  return part;
}

// A memory's History section as the server renders it (memory_history.html), or a
// section that says why it could not be read.
async function historySection(url) {
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
    const text = await response.text();
    if (!response.ok) throw new Error(text.slice(0, 200) || "HTTP " + response.status);
    const holder = document.createElement("template");
    holder.innerHTML = text;
    const part = holder.content.querySelector("section.detail-section");
    if (!part) throw new Error("no history in the answer");
    return part;
  } catch (error) {
    const part = el("section", null, "detail-section");
    part.appendChild(el("h3", t("History")));
    part.appendChild(el("p", t("Could not load the history: %(error)s", { error: error.message }), "flash flash-error"));
    return part;
  }
}

async function showDetail(url, historyUrl) {
  const dialog = document.getElementById("memory-detail");
  const body = document.getElementById("detail-body");
  if (!dialog || !body) return;
  body.replaceChildren(el("p", t("Loading…"), "muted"));
  if (!dialog.open) showModal(dialog);
  const history = historySection(historyUrl);
  let m;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    m = await response.json();
    if (!response.ok) throw new Error((m.error && m.error.message) || "HTTP " + response.status);
  } catch (error) {
    body.replaceChildren(el("p", t("Could not load this memory: %(error)s", { error: error.message }), "flash flash-error"));
    return;
  }
  body.replaceChildren();
  body.appendChild(el("p", m.content, "detail-text"));
  const facts = el("dl", null, "detail-facts");
  const rows = [
    [t("Where"), m.scope === "global" ? t("Global") : t("Workspace %(name)s", { name: m.workspace })],
    [t("Source"), sourceText(m)],
    [t("Created"), when(m.created_at)],
    [t("Updated"), when(m.updated_at)],
    [t("Last used"), when(m.last_used_at)],
    [t("Remember until"), m.expires_at ? untilText(m.expires_at) + (m.expired ? " " + t("(expired: no longer used in chats)") : "") : t("no end")],
    [t("Questions it answers"), questionsText(m.questions)],
  ];
  for (const [term, value] of rows) {
    facts.appendChild(el("dt", term));
    facts.appendChild(el("dd", value));
  }
  body.appendChild(facts);

  const from = section(body, t("Came from these chats"));
  const deleted = m.deleted_source_chat_ids || [];
  const hidden = m.hidden_source_chats || 0;
  if (m.source_chats.length || hidden || deleted.length) {
    const list = el("ul", null, "detail-chats");
    for (const chat of m.source_chats) {
      const item = el("li");
      const link = el("a", chat.workspace + " · " + when(chat.created_at));
      link.href = "/chat/" + encodeURIComponent(chat.workspace);
      item.appendChild(link);
      item.appendChild(el("p", chat.prompt.length > 300 ? chat.prompt.slice(0, 300) + "…" : chat.prompt, "small"));
      list.appendChild(item);
    }
    // chats in workspaces the reader cannot open (one they left): counted, never shown
    for (let n = 0; n < hidden; n++) list.appendChild(el("li", t("A chat in a workspace you can't open"), "muted small hidden-chat"));
    // chats deleted since (or recorded elsewhere before an import): only their id is left
    for (const id of deleted) list.appendChild(el("li", t("Deleted chat (#%(id)s)", { id }), "muted small deleted-chat"));
    from.appendChild(list);
  } else {
    from.appendChild(el("p", t(m.source === "extraction" ? "Those chats are no longer stored." : "None: it was not extracted from a chat."), "muted small"));
  }

  // chats this memory was used in (answers that had it in their prompt)
  const used = section(body, t("Used in chats"));
  try {
    const response = await fetch(url + "/chats", { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const data = await response.json();
    const chats = Array.isArray(data) ? data : (data.chats || []);
    if (!chats.length) used.appendChild(el("p", t("Not used in a recorded chat yet."), "muted small"));
    const list = el("ul", null, "detail-chats");
    for (const chat of chats) {
      const item = el("li", (chat.workspace || "") + " · " + when(chat.created_at) + ": " + (chat.prompt || "").slice(0, 200));
      list.appendChild(item);
    }
    if (chats.length) used.appendChild(list);
  } catch (error) {
    used.appendChild(el("p", t("Not available on this server."), "muted small"));
  }

  // the History table is the server's (the Activity page's words): the same as without script
  body.appendChild(await history);
  document.getElementById("detail-title").focus();
}

function setupDetails() {
  const dialog = document.getElementById("memory-detail");
  if (!dialog) return;
  document.getElementById("detail-title").tabIndex = -1;
  dialog.querySelectorAll("[data-close]").forEach((b) => linkButton(b, () => dialog.close()));
  const links = Array.from(document.querySelectorAll("a[data-detail]"));
  links.forEach((link) => {
    link.setAttribute("aria-haspopup", "dialog");
    linkButton(link, () => {
      const menu = link.closest("details.row-menu");
      if (menu) menu.open = false;
      dialog.returnFocusTo = focusTarget(link);
      showDetail(link.dataset.detail, link.dataset.history);
    });
  });
  dialog.addEventListener("close", () => { if (dialog.returnFocusTo) dialog.returnFocusTo.focus(); });
  if (dialog.hasAttribute("open")) {  // the address asked for it (detail=): the server filled it
    const id = dialog.dataset.memoryId;
    const mine = links.filter((link) => link.dataset.detail.endsWith("/" + id));
    const shown = mine.map(focusTarget);
    dialog.returnFocusTo = shown.find((target) => target.offsetParent !== null) || shown[0];
    dialog.removeAttribute("open");
    showModal(dialog);
    document.getElementById("detail-title").focus();
  }
}

// The admin panel's run list. While a run is in progress (a row "running", or one started
// here), the list is read again from the server -- the same table the page was rendered
// with -- every few seconds, so a run started with "Run now" shows its progress and its
// result without a reload. It stops once nothing runs. Without this script the page the
// server sends back after "Run now" already lists the new run.
function setupRunsList() {
  const card = document.getElementById("extraction-runs");
  const news = document.getElementById("runs-news");
  const button = document.getElementById("run-now");
  if (!card || !news) return;
  let delay = 1000;

  function statuses(table) {
    const seen = new Map();
    table.querySelectorAll("tr[data-run-id]").forEach((row) => seen.set(row.dataset.runId, row.dataset.status));
    return seen;
  }
  function say(text) {
    news.textContent = text;
    news.hidden = !text;
  }
  function schedule(table) {
    if (!table || table.dataset.running !== "yes") return;
    setTimeout(refresh, delay);
    delay = Math.min(delay * 1.5, 5000);
  }
  async function refresh() {
    const old = document.getElementById("runs-table");
    let text;
    try {
      const response = await fetch(card.dataset.runsUrl, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error("HTTP " + response.status);
      text = await response.text();
    } catch (error) {
      say(t("The run list could not be refreshed (%(error)s); reload the page to see the latest runs.", { error: error.message }));
      return;
    }
    const holder = document.createElement("template");
    holder.innerHTML = text;
    const fresh = holder.content.querySelector("#runs-table");
    if (!fresh || !old) return;
    const before = statuses(old);
    const focused = old.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
    old.replaceWith(fresh);
    if (focused) {  // the link that had the focus is in the new list too: keep it there
      const same = Array.from(fresh.querySelectorAll("a[href]")).find((a) => a.getAttribute("href") === focused);
      if (same) same.focus();
    }
    if (button) {
      const busy = fresh.dataset.busy === "yes";
      button.disabled = busy;
      button.textContent = t(busy ? "Running…" : "Run now");
    }
    const done = [];
    statuses(fresh).forEach((status, id) => {
      if (before.get(id) === "running" && status !== "running") done.push(t("Extraction run %(id)s finished: %(status)s.", { id: id.slice(0, 8), status }));
    });
    if (done.length) say(done.join(" "));
    schedule(fresh);
  }
  schedule(document.getElementById("runs-table"));
}

// A fragment still changing on the server (a history import's progress) carries
// data-poll, the address of its next state: fetched a second later, it takes the
// fragment's place, until a state without data-poll (done or stopped) arrives.
function poll(fragment) {
  setTimeout(async () => {
    let text;
    try {
      const response = await fetch(fragment.dataset.poll, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error("HTTP " + response.status);
      text = await response.text();
    } catch (error) {
      fragment.removeAttribute("data-poll");
      fragment.append(" " + t("(The progress could not be refreshed: %(error)s; reload the page.)", { error: error.message }));
      return;
    }
    const holder = document.createElement("template");
    holder.innerHTML = text.trim();
    const fresh = holder.content.firstElementChild;
    if (!fresh) return;
    fragment.replaceWith(fresh);
    if (fresh.dataset.poll) poll(fresh);
  }, 1000);
}

function setupPolling() {
  document.querySelectorAll("[data-poll]").forEach(poll);
}

document.addEventListener("DOMContentLoaded", () => {
  setupEscape();
  setupMenu();
  setupTabs();
  setupProfile();
  setupConfirmations();
  setupMenus();
  setupEdits();
  setupDetails();
  setupRunsList();
  setupPolling();
  forgetOpeners();
});
