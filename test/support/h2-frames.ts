import * as net from "node:net";

// Hand-written HTTP/2 frames (RFC 9113) for tests that must break the rules a real client keeps,
// such as opening more streams than the server's SETTINGS allow.

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;

/** One frame: 9-byte header + payload. */
export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK header block of literal fields without indexing (no Huffman), lengths below 127. */
export function headerBlock(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    parts.push(Buffer.from([0x00, name.length]), Buffer.from(name, "latin1"), Buffer.from([value.length]), Buffer.from(value, "latin1"));
  }
  return Buffer.concat(parts);
}

/** A frame read back from the server. */
export interface ReadFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** A raw h2c connection: writes bytes, collects every frame the server sends, notes when it closes. */
export interface RawH2 {
  socket: net.Socket;
  frames: ReadFrame[];
  closed: Promise<void>;
}

/** Connects, sends the preface and an empty SETTINGS, and acknowledges the server's SETTINGS. */
export function rawH2(port: number): Promise<RawH2> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const frames: ReadFrame[] = [];
    let buffer = Buffer.alloc(0);
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 9) {
        const length = buffer.readUIntBE(0, 3);
        if (buffer.length < 9 + length) break;
        const f = { type: buffer[3], flags: buffer[4], streamId: buffer.readUInt32BE(5) & 0x7fffffff, payload: buffer.subarray(9, 9 + length) };
        buffer = buffer.subarray(9 + length);
        frames.push(f);
        if (f.type === FRAME.SETTINGS && (f.flags & 1) === 0) socket.write(frame(FRAME.SETTINGS, 1, 0));
      }
    });
    socket.once("connect", () => {
      socket.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
      resolve({ socket, frames, closed });
    });
    socket.once("error", reject);
  });
}
