// memoryd web UI: the chat page (loaded by it after memoryd.js, whose csrfToken it uses).
// Kept apart from memoryd.js because no other page needs it. No build step, no dependencies.
"use strict";

// The chat page talks to memoryd's own OpenAI-compatible proxy, streamed. Under each
// answer it lists the memories the proxy injected (X-Memoryd-Memory-Ids); the incognito
// box sends X-Memoryd-Incognito: true, so the chat is neither recorded nor learned from.
function memoryIndex() {
  const node = document.getElementById("memory-index");
  try { return node ? JSON.parse(node.textContent) : {}; } catch (error) { return {}; }
}

async function describeMemory(index, id) {
  if (index[id]) return index[id];
  try {  // added since the page loaded (e.g. by extraction)
    const response = await fetch("/api/v1/memories/" + encodeURIComponent(id), { credentials: "same-origin" });
    if (response.ok) {
      const memory = await response.json();
      index[id] = { content: memory.content, scope: memory.scope, workspace: memory.workspace };
      return index[id];
    }
  } catch (error) { /* shown as unknown below */ }
  return null;
}

async function usedMemories(index, ids) {
  const details = document.createElement("details");
  details.className = "used";
  details.dataset.usedCount = String(ids.length);
  const summary = document.createElement("summary");
  summary.textContent = ids.length
    ? "Answered with " + ids.length + " memor" + (ids.length === 1 ? "y" : "ies")
    : "No memories used";
  details.appendChild(summary);
  if (!ids.length) return details;
  const list = document.createElement("ul");
  list.className = "used-list";
  for (const id of ids) {
    const item = document.createElement("li");
    item.dataset.memoryId = id;
    const memory = await describeMemory(index, id);
    if (memory) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = memory.scope === "global" ? "global" : memory.workspace;
      item.append(badge, " " + memory.content);
    } else {
      const gone = document.createElement("span");
      gone.className = "muted";
      gone.textContent = "a memory since deleted";
      item.appendChild(gone);
    }
    list.appendChild(item);
  }
  details.appendChild(list);
  return details;
}

// The recorded exchange (from GET /api/v1/chats) with this prompt and answer that the
// page does not show yet; null if it was not recorded within a few seconds.
async function recordedChat(workspace, prompt, response, list) {
  const url = "/api/v1/chats?limit=20&workspace=" + encodeURIComponent(workspace);
  for (let wait = 50; wait < 6400; wait *= 2) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      const reply = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!reply.ok) return null;
      const chats = await reply.json();
      const found = chats.reverse().find((c) => c.prompt === prompt && c.response === response
        && !list.querySelector('[data-chat-id="' + c.id + '"]'));
      if (found) return found;
    } catch (error) { return null; }
  }
  return null;
}

// A new answer's Delete, from the page's template of it ({id}, {prompt:N}: the first N
// characters of the prompt, as the server cuts them).
function deleteForm(id, prompt) {
  const form = document.getElementById("delete-exchange").content.firstElementChild.cloneNode(true);
  const fill = (value) => value.replace(/\{(id|prompt:(\d+))\}/g, (_, what, n) =>
    what === "id" ? String(id) : Array.from(prompt).slice(0, Number(n)).join(""));
  for (const node of [form, ...form.querySelectorAll("*")]) {
    for (const name of ["action", "data-confirm", "aria-label"]) {
      if (node.hasAttribute(name)) node.setAttribute(name, fill(node.getAttribute(name)));
    }
  }
  return form;
}

function setupChat() {
  const form = document.getElementById("chat-form");
  if (!form) return;
  form.querySelector("button[type=submit]").disabled = false;  // off in the page: it needs this script
  const input = document.getElementById("chat-input");
  const list = document.getElementById("messages");
  const status = document.getElementById("chat-status");
  const incognito = document.getElementById("chat-incognito");
  const index = memoryIndex();

  function bubble(role, text) {
    const item = document.createElement("li");
    item.className = "message " + role;
    item.dataset.role = role;
    const body = document.createElement("div");
    body.className = "message-text";
    body.textContent = text;
    item.appendChild(body);
    list.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function history() {
    return Array.from(list.querySelectorAll("[data-role]"))
      .filter((m) => !m.classList.contains("error"))
      .slice(-20)
      .map((m) => ({ role: m.dataset.role, content: m.querySelector(".message-text").textContent }));
  }

  function markIncognito(item) {
    item.classList.add("incognito");
    const badge = document.createElement("span");
    badge.className = "badge incognito-badge";
    badge.textContent = "incognito: not recorded";
    item.appendChild(badge);
  }

  // A recorded exchange gets the controls the page gives the ones it came with: its
  // Delete, and the page's Clear history counts it. The server writes the exchange just
  // after the answer ends, so its id is looked up once it is there.
  async function addControls(answer, prompt, response) {
    const chat = await recordedChat(form.dataset.workspace, prompt, response, list);
    if (!chat) return;
    answer.dataset.chatId = String(chat.id);
    answer.appendChild(deleteForm(chat.id, prompt));
    const clear = document.getElementById("clear-history");
    if (clear) {
      const count = Number(clear.dataset.count || 0) + 1;
      clear.dataset.count = String(count);
      clear.dataset.confirm = "Delete all " + count + " of your exchange" + (count === 1 ? "" : "s") + clear.dataset.confirmRest;
      clear.hidden = false;
    }
  }

  if (incognito) {
    incognito.addEventListener("change", () => form.classList.toggle("incognito", incognito.checked));
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    const secret = Boolean(incognito && incognito.checked);
    const messages = [...history(), { role: "user", content: text }];
    const asked = bubble("user", text);
    input.value = "";
    const answer = bubble("assistant", "");
    const answerText = answer.querySelector(".message-text");
    const button = form.querySelector("button");
    button.disabled = true;
    status.textContent = "Thinking…";
    const headers = {
      "Content-Type": "application/json",
      "X-CSRF-Token": csrfToken(),
      "X-Memoryd-Workspace": form.dataset.workspace,
    };
    if (secret) headers["X-Memoryd-Incognito"] = "true";
    try {
      const response = await fetch("/v1/chat/completions", {
        method: "POST",
        credentials: "same-origin",
        headers,
        body: JSON.stringify({ model: form.dataset.model, stream: true, messages }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error((body.error && body.error.message) || ("HTTP " + response.status));
      }
      const ids = (response.headers.get("X-Memoryd-Memory-Ids") || "").split(",").filter(Boolean);
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
          if (delta && delta.content) answerText.textContent += delta.content;
        }
      }
      answer.appendChild(await usedMemories(index, ids));
      if (secret) { markIncognito(asked); markIncognito(answer); }
      const used = ids.length + " memor" + (ids.length === 1 ? "y" : "ies");
      status.textContent = "Answered using " + used + "." + (secret ? " Incognito: this chat was not recorded." : "");
      if (!secret) addControls(answer, text, answerText.textContent);
    } catch (error) {
      answer.classList.add("error");
      answerText.textContent = "Error: " + error.message;
      status.textContent = "";
    } finally {
      button.disabled = false;
      input.focus();
    }
  });
}

document.addEventListener("DOMContentLoaded", setupChat);
