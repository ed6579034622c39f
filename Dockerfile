# Parley: one instance. Build with `docker build -t parley .`; run several
# behind a balancer with compose.yaml (docs/deployment.md).
FROM denoland/deno:2.9.6

WORKDIR /app
ENV DENO_DIR=/deno-dir \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080 \
    REALTIME_PORT=8081

# Dependencies first, in a layer of their own: a code change does not fetch them again.
COPY deno.json deno.lock ./
RUN deno install --frozen

# Then the code, type-checked and cached, owned by the unprivileged user.
COPY . .
RUN deno cache --frozen main.ts cli/admin.ts \
 && mkdir -p /data \
 && chown -R deno:deno /app /data /deno-dir

USER deno
# The embedded database and the generated keys. With DATABASE_URL set it holds
# only generated keys (VAPID_GENERATE): mount one volume on every instance.
VOLUME /data
# HTTP, and the realtime socket server (its own listener: docs/realtime.md).
EXPOSE 8080 8081

HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:8080/readyz'); Deno.exit(r.ok ? 0 : 1)"]

# SIGTERM stops gracefully: no new connections, requests in flight answered,
# sockets told to reconnect elsewhere, streams given SHUTDOWN_GRACE_SECONDS.
STOPSIGNAL SIGTERM
CMD ["deno", "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys", "--allow-ffi", "main.ts"]
