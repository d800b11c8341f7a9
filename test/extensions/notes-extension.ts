/**
 * A user's extension for the tests: `com.example/notes` with one method of
 * its own on both eras (`notes/count`, which requires the client's
 * declaration) and a member it adds to tools/list results.
 */
import { defineExtension, ExtensionError, type Extension } from '../../lib/index.js';

export const NOTES_ID = 'com.example/notes';

/** `work`, when given, answers notes/count instead (a timer on a test clock, a Promise that waits for its signal). */
export function notesExtension(notes: readonly string[] = ['a', 'b'], work?: (folder: string, signal: AbortSignal) => unknown): Extension {
  return defineExtension({
    id: NOTES_ID,
    settings: { folders: true },
    methods: {
      'notes/count': {
        handler: (params, ctx) => {
          const folder = params.folder;
          if (folder !== undefined && typeof folder !== 'string') throw new ExtensionError(-32602, 'folder must be a string', { folder });
          if (work !== undefined) return work(folder ?? '', ctx.signal) as Record<string, unknown>;
          return { count: notes.length, era: ctx.era, declared: ctx.declared, extensionId: ctx.extensionId };
        },
      },
    },
    resultMembers: {
      'tools/list': (_result, ctx) => (ctx.declared ? { notesFolders: ['inbox'] } : undefined),
    },
  });
}
