// The memories for one chat turn, then the exchange recorded for extraction.
// Run against a server: MEMORYD_URL=http://127.0.0.1:8765 MEMORYD_API_KEY=mdk_... node dist/examples/chat-turn.js
import { memorydClient, type Memory } from "../src/index.js";

const url = process.env.MEMORYD_URL ?? "http://127.0.0.1:8765";
const memoryd = memorydClient(url, process.env.MEMORYD_API_KEY ?? "");
const workspace = process.env.MEMORYD_WORKSPACE ?? "alpha";

const added = await memoryd.POST("/api/v1/memories", {
  body: { content: "Phoenix ships in Q3", workspace },
});
if (added.error) throw new Error(`could not add the memory: ${added.error.error.message}`);

const { data, error } = await memoryd.POST("/api/v1/context", {
  body: { message: "When do we ship?", workspace, system_prompt: "You are helpful." },
});
if (error) throw new Error(`${error.error.type}: ${error.error.message}`);
const chosen: Memory[] = data.memories;
console.log(data.system_prompt);

await memoryd.POST("/api/v1/chats", {
  body: { workspace, prompt: "When do we ship?", response: "In Q3." },
});

// The types catch API mistakes at compile time:
// @ts-expect-error -- 'text' is not a field of a memory; it is 'content'
await memoryd.POST("/api/v1/memories", { body: { text: "oops" } });
console.log(JSON.stringify(chosen.map((m) => m.content)));
