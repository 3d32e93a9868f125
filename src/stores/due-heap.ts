interface Node {
  at: number;
  key: string;
  version: number;
}

/** A min-heap of due times with lazy deletion: a node whose version is not its key's latest is stale, skipped when it surfaces. */
export class DueHeap {
  #nodes: Node[] = [];
  readonly #versions = new Map<string, number>();
  #nextVersion = 1;

  get size(): number {
    return this.#versions.size;
  }

  set(key: string, at: number): void {
    const version = this.#nextVersion++;
    this.#versions.set(key, version);
    this.#push({ at, key, version });
    if (this.#nodes.length > 64 && this.#nodes.length > 3 * this.#versions.size) this.#rebuild();
  }

  delete(key: string): void {
    this.#versions.delete(key);
  }

  popDue(now: number): string | undefined {
    for (;;) {
      const top = this.#nodes[0];
      if (top === undefined) return undefined;
      if (this.#versions.get(top.key) !== top.version) {
        this.#pop();
        continue;
      }
      if (top.at > now) return undefined;
      this.#pop();
      this.#versions.delete(top.key);
      return top.key;
    }
  }

  #rebuild(): void {
    const live = this.#nodes.filter((node) => this.#versions.get(node.key) === node.version);
    this.#nodes = [];
    for (const node of live) this.#push(node);
  }

  #push(node: Node): void {
    const nodes = this.#nodes;
    nodes.push(node);
    let index = nodes.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (nodes[parent]!.at <= node.at) break;
      nodes[index] = nodes[parent]!;
      index = parent;
    }
    nodes[index] = node;
  }

  #pop(): void {
    const nodes = this.#nodes;
    const last = nodes.pop()!;
    if (nodes.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= nodes.length) break;
      const right = left + 1;
      const child = right < nodes.length && nodes[right]!.at < nodes[left]!.at ? right : left;
      if (nodes[child]!.at >= last.at) break;
      nodes[index] = nodes[child]!;
      index = child;
    }
    nodes[index] = last;
  }
}
