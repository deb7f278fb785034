/** Longest automatic title. */
export const TITLE_CHARS = 80;
/** Longest last-message preview. */
export const PREVIEW_CHARS = 160;

/** Collapses whitespace and cuts at `max` characters on a word boundary, marking the cut with "…". */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

/**
 * The offline automatic title of a conversation: the first sentence of its first user message,
 * trimmed to 80 characters ("" when the message holds no words).
 */
export function autoTitle(firstUserMessage: string): string {
  const flat = firstUserMessage.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  return clip(sentence.replace(/[.]$/, ""), TITLE_CHARS);
}

/** The preview of a conversation's last message. */
export function preview(content: string): string {
  return clip(content, PREVIEW_CHARS);
}
