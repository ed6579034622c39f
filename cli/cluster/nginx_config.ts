/**
 * The load balancer's routing, written once: `deno task cluster` renders it
 * for its own instances, and deploy/nginx.conf carries the same block for the
 * compose file (a test keeps the two equal). What each directive is for is
 * said beside it, since an operator will read the rendered file.
 */

/**
 * Largest body a route reads (KNOWLEDGE_BODY_LIMIT, 4 MiB and 64 KiB), rounded up; the
 * file uploads have a location of their own (UPLOAD_BODY_LIMIT, 20 MiB and 64 KiB).
 */
const CLIENT_MAX_BODY = "5m";

/** One instance: its HTTP listener and its socket server's (`host:port` each). */
export interface Upstream {
  http: string;
  socket: string;
}

/**
 * The `upstream` and `server` blocks for `upstreams`, listening on `listen`
 * (`host:port` or a port).
 */
export function nginxRouting(upstreams: Upstream[], listen: string): string {
  const list = (pick: (u: Upstream) => string) =>
    upstreams.map((u) => `    server ${pick(u)} max_fails=0;`).join("\n");
  return `# Upgrade requests (the sockets under /app/) keep their Upgrade; every other
# request goes upstream without a Connection header.
map $http_upgrade $parley_connection {
    default upgrade;
    "" "";
}

upstream parley {
    # The instance with the fewest open connections: long streams do not pile
    # up on one instance. No instance is ever marked down (max_fails=0): one
    # that is stopped refuses the connection at once and the request goes to
    # the next, while one marked down for a while could leave no instance at
    # all during a quick rolling restart ("no live upstreams").
    least_conn;
${list((u) => u.http)}
}

# Each instance's socket server listens on a port of its own (REALTIME_PORT),
# where frames are capped before they are read (docs/realtime.md).
upstream parley_sockets {
    least_conn;
${list((u) => u.socket)}
}

server {
    listen ${listen};
    client_max_body_size ${CLIENT_MAX_BODY};

    # Every header sent upstream is set here, and no location sets one: nginx
    # drops ALL of these in any location that has a proxy_set_header of its own,
    # and each instance would then see the balancer's address for every client
    # and believe whatever X-Forwarded-For a client sent.
    # Each instance takes the client's address from the right-most hop that is
    # not a trusted proxy: set TRUSTED_PROXIES to this balancer's address (and
    # to any proxy in front of it), so the hop nginx appends is the one read.
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $parley_connection;
    proxy_http_version 1.1;
    # An instance that fails before answering (connection refused or reset:
    # stopped, restarting, killed) passes the request to the next instance,
    # POSTs included: a connection accepted by the kernel just as an instance
    # stops is reset unread. Writes a client retries carry an idempotency key
    # (agent replies' client_id, visitor messages' key), so a repeat is
    # answered with the stored result. A slow answer (timeout) is never
    # repeated.
    proxy_next_upstream error non_idempotent;
    proxy_next_upstream_tries 3;
    proxy_connect_timeout 2s;

    # The realtime server (Pusher protocol over WebSocket); set every
    # instance's REALTIME_URL to this balancer's ws(s):// address.
    location /app/ {
        proxy_pass http://parley_sockets;
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
    }

    # The widget's reply stream: every event leaves at once (no buffering).
    location ~ ^/widget/[^/]+/stream$ {
        proxy_pass http://parley;
        proxy_buffering off;
        proxy_cache off;
        proxy_read_timeout 5m;
    }

    # Knowledge file uploads (docs/knowledge.md): a file of up to 20 MiB and
    # its multipart envelope, refused by the instance past that (413). The
    # body streams through as it arrives, not spooled to a file first: the
    # instance reads Content-Length and refuses an oversized upload at once.
    location ~ ^/api/(portal|dashboard)/chatbots/[^/]+/knowledge/files$ {
        client_max_body_size 21m;
        proxy_request_buffering off;
        proxy_pass http://parley;
        proxy_read_timeout 5m;
    }

    # Metrics are scraped from each instance directly (docs/operations.md):
    # one scrape through the balancer would read a random instance's figures,
    # and the endpoint has no business on the public address.
    location = /metrics {
        default_type application/json;
        return 404 '{"message":"Not found."}';
    }

    location / {
        proxy_pass http://parley;
        proxy_read_timeout 5m;
    }
}
`;
}

/**
 * A whole nginx.conf for a balancer run by an unprivileged process: every
 * path (pid, logs, temp files) under `prefix`, nothing under /var.
 */
export function standaloneNginxConfig(prefix: string, routing: string): string {
  return `worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;

events {
    worker_connections 16384;
}

http {
    access_log off;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;

${indent(routing, "    ")}
}
`;
}

function indent(text: string, pad: string): string {
  return text.trimEnd().split("\n").map((l) => (l ? pad + l : l)).join("\n");
}
