# Generic runtime image for a static Go binary (used for the Rewards service
# and, in the e2e tests, for any other Go program such as fakes).
#
# This Dockerfile does NOT compile anything: the build context must already
# contain the files below. The e2e harness (e2e/harness.GoImage) prepares such
# a context in a temporary directory; to do it by hand:
#
#   ctx=$(mktemp -d)
#   CGO_ENABLED=0 go build -trimpath -o "$ctx/app" ./app/cmd/rewards
#   cp Dockerfile .dockerignore "$ctx/"
#   cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
#   printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ctx/passwd"
#   printf 'root:x:0:\nnonroot:x:65532:\n' >"$ctx/group"
#   mkdir "$ctx/data"
#   docker build -t rewards:dev "$ctx"
#
# Context files:
#   app                  the statically linked binary (CGO_ENABLED=0)
#   ca-certificates.crt  CA bundle for outgoing TLS
#   passwd, group        minimal user database with the non-root user
#                        "nonroot" (uid/gid 65532)
#   data/                an empty directory: the image's writable /data
#
# Nothing is pulled: "scratch" is built into docker.
FROM scratch

COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY passwd /etc/passwd
COPY group /etc/group
COPY app /app
# The only writable place: uploads and other local state (REWARDS_DATA_DIR).
COPY --chown=65532:65532 data /data
ENV REWARDS_DATA_DIR=/data

# Run as the unprivileged "nonroot" user, never as root.
USER 65532:65532

ENTRYPOINT ["/app"]
