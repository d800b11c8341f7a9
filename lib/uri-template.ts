/**
 * Matching a concrete URI against an RFC 6570 template, for resources/read.
 * Supports the expressions a resource URI uses: `{var}` (one segment),
 * `{+var}` and `{#var}` (reserved: may span `/`), `{/var}`, `{.var}`,
 * `{?a,b}` and `{&a}` (query parameters, in any order, each optional).
 */
export type TemplateMatcher = (uri: string) => Record<string, string> | undefined;

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function compileUriTemplate(template: string): TemplateMatcher {
  const names: string[] = [];
  const queryNames: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    last = match.index + match[0].length;
    const operator = match[1] ?? '';
    const vars = (match[2] ?? '').split(',').map((v) => v.replace(/[*]$|:\d+$/, '').trim());
    if (operator === '?' || operator === '&') {
      if (queryNames.length === 0) pattern += '(?:[?&](?<query>.*))?';
      queryNames.push(...vars);
      continue;
    }
    const prefix = { '': '', '+': '', '#': '#', '.': '\\.', '/': '/', ';': ';' }[operator] ?? '';
    const body = operator === '+' || operator === '#' ? '.+?' : '[^/?#,]+';
    vars.forEach((name, index) => {
      names.push(name);
      pattern += (index === 0 ? prefix : ',') + `(${body})`;
    });
  }
  pattern += escapeRegExp(template.slice(last)) + '$';
  const regex = new RegExp(pattern);
  return (uri) => {
    const found = regex.exec(uri);
    if (!found) return undefined;
    const variables: Record<string, string> = {};
    names.forEach((name, index) => {
      variables[name] = decode(found[index + 1] ?? '');
    });
    const query = found.groups?.query;
    if (query) {
      for (const pair of query.split('&')) {
        const [key = '', value = ''] = pair.split('=');
        if (queryNames.includes(key)) variables[key] = decode(value);
      }
    }
    return variables;
  };
}
