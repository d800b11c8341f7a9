/**
 * The fixture's skills (SEP-2640), given in code: one skill with a
 * supporting file in each of two folders, so the conformance suite's
 * `sep-2640-skills-*` scenarios find a listed entry, its SKILL.md, and a
 * directory with a subdirectory to read.
 */
import { SkillCatalog } from '../../lib/index.js';

const SKILL_MD = `---
name: conformance-demo
description: Shows how an rxmcp server publishes a skill over MCP
license: MIT
metadata:
  author: rxmcp
  version: "1.0"
---
# Conformance demo

Read [the guide](references/GUIDE.md), then fill in one of the templates in \`templates/\`.
`;

export function everythingSkills(): SkillCatalog {
  return SkillCatalog.of([
    {
      path: 'conformance-demo',
      files: {
        'SKILL.md': SKILL_MD,
        'references/GUIDE.md': '# Guide\n\nCall the `echo` tool with the text to check.\n',
        'templates/report.md': '# Report\n\n- checked:\n- result:\n',
      },
    },
  ]);
}
