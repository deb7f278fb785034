/** One chat message sent to a model (prompt builders in core make them; `ports/chat-model` sends them). */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}
