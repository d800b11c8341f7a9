/**
 * Incremental text/event-stream reading: feed chunks, get each event's data
 * (multi-line `data:` fields joined by newlines) as soon as its blank line
 * arrives. Comments, ids and event names do not matter to the driver.
 */
export class SseReader {
  private buffered = '';

  /** Returns the data of every event completed by this chunk. */
  feed(chunk: string): string[] {
    this.buffered += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
    const events: string[] = [];
    let boundary = this.buffered.indexOf('\n\n');
    while (boundary !== -1) {
      const block = this.buffered.slice(0, boundary);
      this.buffered = this.buffered.slice(boundary + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) events.push(data.join('\n'));
      boundary = this.buffered.indexOf('\n\n');
    }
    return events;
  }
}
