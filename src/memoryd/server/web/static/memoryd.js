// memoryd web UI: the profile panel, tabs, confirmations and the chat page. No build step.
"use strict";

function csrfToken() { return document.body.dataset.csrf || ""; }

function openProfile(tab) {
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (dialog.open) dialog.close();
  dialog.showModal();
  if (tab) selectTab(tab);
}

function selectTab(name) {
  document.querySelectorAll("#profile [role=tab]").forEach((tab) => {
    const selected = tab.id === "tab-" + name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
  });
}

function setupProfile() {
  const button = document.getElementById("user-button");
  if (button) button.addEventListener("click", () => openProfile());
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (document.body.dataset.panel) {  // reopened after a form in the panel was sent
    dialog.removeAttribute("open");
    openProfile(document.body.dataset.panel);
  }
  dialog.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", () => dialog.close()));
  const tabs = Array.from(dialog.querySelectorAll("[role=tab]"));
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => selectTab(tab.id.slice(4)));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      next.focus();
      selectTab(next.id.slice(4));
    });
  });
}

function setupConfirmations() {
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
}

// The chat page talks to memoryd's own OpenAI-compatible proxy, streamed.
function setupChat() {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const input = document.getElementById("chat-input");
  const list = document.getElementById("messages");
  const status = document.getElementById("chat-status");

  function bubble(role, text) {
    const item = document.createElement("li");
    item.className = "message " + role;
    item.dataset.role = role;
    item.textContent = text;
    list.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function history() {
    return Array.from(list.querySelectorAll("[data-role]"))
      .filter((m) => !m.classList.contains("error"))
      .slice(-20)
      .map((m) => ({ role: m.dataset.role, content: m.textContent }));
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    const messages = [...history(), { role: "user", content: text }];
    bubble("user", text);
    input.value = "";
    const answer = bubble("assistant", "");
    const button = form.querySelector("button");
    button.disabled = true;
    status.textContent = "Thinking…";
    try {
      const response = await fetch("/v1/chat/completions", {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "X-CSRF-Token": csrfToken(),
          "X-Memoryd-Workspace": form.dataset.workspace,
        },
        body: JSON.stringify({ model: form.dataset.model, stream: true, messages }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error((body.error && body.error.message) || ("HTTP " + response.status));
      }
      const used = response.headers.get("X-Memoryd-Memories") || "0";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const lines = buffer.split("\n");
        buffer = lines.pop();
        for (const line of lines) {
          if (!line.startsWith("data:")) continue;
          const data = line.slice(5).trim();
          if (data === "[DONE]") continue;
          const chunk = JSON.parse(data);
          if (chunk.error) throw new Error(chunk.error.message);
          const delta = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
          if (delta && delta.content) answer.textContent += delta.content;
        }
      }
      status.textContent = "Answered using " + used + " memor" + (used === "1" ? "y" : "ies") + ".";
    } catch (error) {
      answer.classList.add("error");
      answer.textContent = "Error: " + error.message;
      status.textContent = "";
    } finally {
      button.disabled = false;
      input.focus();
    }
  });
}

// A memory's detail: read from the REST API (the session cookie signs the request) and
// written with textContent only, so nothing in a memory or a chat can become markup.
// H2 (issue 12, item 10) adds an endpoint listing the chats a memory was used in; the
// server puts its path (after the memory's URL) in the dialog's data-used-in when the
// route exists (see USED_IN_SUFFIX in memoryd/server/web/routes.py).

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function when(iso) {
  if (!iso) return "never";
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

// A date-only expiry is stored as the next midnight (UTC): show the day the user chose.
function untilText(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  if (d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds()) return when(iso);
  return new Date(d.getTime() - 86400000).toISOString().slice(0, 10) + " (to the end of the day, UTC)";
}

function sourceText(m) {
  const by = m.created_by || "";
  if (m.source === "extraction") return "Extraction run " + (m.run_id || by.split(":")[1] || "?") + (by.startsWith("user:") || by.startsWith("admin:") ? " (accepted by " + by + ")" : "");
  if (m.source === "admin") return "An admin" + (by ? " (" + by + ")" : "");
  if (m.source === "import") return "Imported" + (by ? " (" + by + ")" : "");
  return "Added by the user" + (by ? " (" + by + ")" : "");
}

function section(body, title) {
  const part = el("section", null, "detail-section");
  part.appendChild(el("h3", title));
  body.appendChild(part);
  return part;
}

function describe(view) {
  if (!view) return "—";
  const where = view.scope === "global" ? "global" : "[" + view.workspace + "]";
  return where + " " + (view.content || "");
}

async function showDetail(url) {
  const dialog = document.getElementById("memory-detail");
  const body = document.getElementById("detail-body");
  if (!dialog || !body) return;
  body.replaceChildren(el("p", "Loading…", "muted"));
  if (!dialog.open) dialog.showModal();
  let m;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    m = await response.json();
    if (!response.ok) throw new Error((m.error && m.error.message) || "HTTP " + response.status);
  } catch (error) {
    body.replaceChildren(el("p", "Could not load this memory: " + error.message, "flash flash-error"));
    return;
  }
  body.replaceChildren();
  body.appendChild(el("p", m.content, "detail-text"));
  const facts = el("dl", null, "detail-facts");
  const rows = [
    ["Where", m.scope === "global" ? "Global" : "Workspace " + m.workspace],
    ["Source", sourceText(m)],
    ["Created", when(m.created_at)],
    ["Updated", when(m.updated_at)],
    ["Last used", when(m.last_used_at)],
    ["Remember until", m.expires_at ? untilText(m.expires_at) + (m.expired ? " (expired: no longer used in chats)" : "") : "no end"],
  ];
  for (const [term, value] of rows) {
    facts.appendChild(el("dt", term));
    facts.appendChild(el("dd", value));
  }
  body.appendChild(facts);

  const from = section(body, "Came from these chats");
  if (m.source_chats.length) {
    const list = el("ul", null, "detail-chats");
    for (const chat of m.source_chats) {
      const item = el("li");
      const link = el("a", chat.workspace + " · " + when(chat.created_at));
      link.href = "/chat/" + encodeURIComponent(chat.workspace);
      item.appendChild(link);
      item.appendChild(el("p", chat.prompt.length > 300 ? chat.prompt.slice(0, 300) + "…" : chat.prompt, "small"));
      list.appendChild(item);
    }
    from.appendChild(list);
  } else {
    from.appendChild(el("p", m.source === "extraction" ? "Those chats are no longer stored." : "None: it was not extracted from a chat.", "muted small"));
  }

  // H2: chats this memory was used in (answers that had it in their prompt).
  const used = section(body, "Used in chats");
  const usedInPath = dialog.dataset.usedIn;
  try {
    if (!usedInPath) throw new Error("no endpoint");
    const response = await fetch(url + usedInPath, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const data = await response.json();
    const chats = Array.isArray(data) ? data : (data.chats || []);
    if (!chats.length) used.appendChild(el("p", "Not used in a recorded chat yet.", "muted small"));
    const list = el("ul", null, "detail-chats");
    for (const chat of chats) {
      const item = el("li", (chat.workspace || "") + " · " + when(chat.created_at) + ": " + (chat.prompt || "").slice(0, 200));
      list.appendChild(item);
    }
    if (chats.length) used.appendChild(list);
  } catch (error) {
    used.appendChild(el("p", "Not available on this server.", "muted small"));
  }

  const history = section(body, "History");
  const table = el("table", null, "detail-history");
  const titles = ["When", "Change", "By", "Before", "After"];
  const head = el("thead");
  const headRow = el("tr");
  for (const title of titles) {
    const th = el("th", title);
    th.scope = "col";
    headRow.appendChild(th);
  }
  head.appendChild(headRow);
  table.appendChild(head);
  const rowsBody = el("tbody");
  for (const entry of m.history) {
    const row = el("tr");
    const values = [when(entry.at), entry.action, entry.actor, describe(entry.before), describe(entry.after)];
    values.forEach((value, index) => {
      const cell = el("td", value);
      cell.dataset.label = titles[index];  // shown beside the value on narrow screens
      row.appendChild(cell);
    });
    rowsBody.appendChild(row);
  }
  table.appendChild(rowsBody);
  history.appendChild(table);
  document.getElementById("detail-title").focus();
}

function setupDetails() {
  const dialog = document.getElementById("memory-detail");
  if (!dialog) return;
  document.getElementById("detail-title").tabIndex = -1;
  dialog.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", () => dialog.close()));
  document.querySelectorAll("button[data-detail]").forEach((button) => {
    button.addEventListener("click", () => {
      dialog.returnFocusTo = button;
      showDetail(button.dataset.detail);
    });
  });
  dialog.addEventListener("close", () => { if (dialog.returnFocusTo) dialog.returnFocusTo.focus(); });
}

document.addEventListener("DOMContentLoaded", () => {
  setupProfile();
  setupConfirmations();
  setupChat();
  setupDetails();
});
