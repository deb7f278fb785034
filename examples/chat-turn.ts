import { AgentMem } from "agentmem/sdk";

const mem = new AgentMem({ baseUrl: process.env.AGENTMEM_URL ?? "http://127.0.0.1:8080", apiKey: process.env.AGENTMEM_API_KEY });
const scope = { user: "patient_42" };

// One call per user message: detect, retrieve, update the relation, reply (with a model), store.
const first = await mem.process({ scope, message: "I'm nervous about my knee surgery on Friday.", channel: "web" });
console.log("emotions:", first.context?.detectedEmotions.join(", "), "| trust:", first.user?.trust.toFixed(2));

// The next turn recalls what the first one said.
const second = await mem.process({ scope, message: "What did I tell you about my knee surgery?" });
for (const m of second.memory?.relevantMemories ?? []) console.log("recalled:", m.similarity.toFixed(2), m.text.split("\n")[0]);

// Without --llm the reply is empty: send the system prompt to your own model.
console.log(second.response || second.context?.systemPrompt.split("\n")[0]);

// Right to erasure (admin key): everything about the end-user, down to the bytes on disk.
const erased = await mem.clearHistory("patient_42");
console.log(`erased ${erased.memories} memories and ${erased.episodes} turns`);
