/**
 * `@a2a-js/sdk` decodes a file part's bytes with Node's `Buffer`
 * (`dist/index.js`: `Buffer.from(bytesFromBase64(...))`), which a browser
 * lacks: without it, a Task with an image fails to parse. The `buffer`
 * package is Node's Buffer for browsers; the page sets it before any part
 * is read.
 */
import { Buffer } from 'buffer';

const global = globalThis as { Buffer?: unknown };
global.Buffer ??= Buffer;
