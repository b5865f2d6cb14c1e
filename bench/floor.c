// floor.c: the least CPU a client can spend per transaction on this machine
// for pgbench's select-only and "SELECT 1 -M prepared" cases, as a yardstick
// for bench/pgbench.sh: a thread per connection, blocking sockets, one
// send(2) and (almost always) one recv(2) per transaction, no poll, no
// timing, no statistics. What pgbench and txnbench spend above it is their
// own; what it spends is the kernel's price of a round trip.
//
//   cc -O2 -pthread -o floor bench/floor.c
//   floor HOST PORT USER DATABASE CLIENTS SECONDS select-only|select1-prepared [SCALE]
//
// Trust authentication only (bench/pgbench.sh's cluster). Prints
// "transactions N"; measure its CPU with time(1), as bench/pgbench.sh does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host, *user, *db, *mode;
static int port, seconds, scale = 10;
static volatile int stop;

static void die(const char *what) {
  perror(what);
  exit(1);
}

static char *put32(char *p, uint32_t v) {
  v = htonl(v);
  memcpy(p, &v, 4);
  return p + 4;
}

static char *putstr(char *p, const char *s) {
  size_t n = strlen(s) + 1;
  memcpy(p, s, n);
  return p + n;
}

// msg appends a message of type t with body b (n bytes) at p.
static char *msg(char *p, char t, const char *b, size_t n) {
  *p++ = t;
  p = put32(p, (uint32_t)n + 4);
  memcpy(p, b, n);
  return p + n;
}

static void sendall(int fd, const char *b, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, b, n, 0);
    if (w < 0) die("send");
    b += w;
    n -= (size_t)w;
  }
}

// untilready reads messages until ReadyForQuery; an ErrorResponse ends the
// program.
static void untilready(int fd) {
  static __thread char buf[65536];
  size_t have = 0;
  for (;;) {
    ssize_t r = recv(fd, buf + have, sizeof buf - have, 0);
    if (r <= 0) die("recv");
    have += (size_t)r;
    size_t off = 0;
    while (have - off >= 5) {
      uint32_t len;
      memcpy(&len, buf + off + 1, 4);
      len = ntohl(len);
      if (have - off < 1 + (size_t)len) break;
      char t = buf[off];
      if (t == 'E') {
        fprintf(stderr, "server error: %.*s\n", (int)len - 4, buf + off + 5);
        exit(1);
      }
      off += 1 + len;
      if (t == 'Z') return;
    }
    memmove(buf, buf + off, have - off);
    have -= off;
  }
}

static long done[1024];

static void *client(void *arg) {
  long id = (long)arg;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &a.sin_addr);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  char b[512], *p = b + 4;
  p = put32(p, 196608); // protocol 3.0
  p = putstr(p, "user");
  p = putstr(p, user);
  p = putstr(p, "database");
  p = putstr(p, db);
  *p++ = 0;
  put32(b, (uint32_t)(p - b));
  sendall(fd, b, (size_t)(p - b));
  untilready(fd);

  char q[512];
  size_t qn = 0;
  int prepared = strcmp(mode, "select1-prepared") == 0;
  if (prepared) { // Parse "s" once, then Bind + Execute + Sync per transaction
    char body[64], *e = body;
    e = putstr(e, "s");
    e = putstr(e, "SELECT 1;");
    *e++ = 0, *e++ = 0;
    p = msg(b, 'P', body, (size_t)(e - body));
    p = msg(p, 'S', "", 0);
    sendall(fd, b, (size_t)(p - b));
    untilready(fd);
    e = body;
    e = putstr(e, "");
    e = putstr(e, "s");
    memset(e, 0, 6), e += 6; // no parameter formats, no parameters, no result formats
    p = msg(q, 'B', body, (size_t)(e - body));
    p = msg(p, 'E', "\0\0\0\0", 5);
    p = msg(p, 'S', "", 0);
    qn = (size_t)(p - q);
  }
  unsigned seed = (unsigned)id * 2654435761u + 1;
  long n = 0;
  while (!stop) {
    if (!prepared) { // pgbench -S: a simple query with a random account
      char sql[128];
      long aid = 1 + (long)(rand_r(&seed) % (100000L * scale));
      int l = snprintf(sql, sizeof sql, "SELECT abalance FROM pgbench_accounts WHERE aid = %ld;", aid);
      qn = (size_t)(msg(q, 'Q', sql, (size_t)l + 1) - q);
    }
    sendall(fd, q, qn);
    untilready(fd);
    n++;
  }
  done[id] = n;
  msg(b, 'X', "", 0);
  sendall(fd, b, 5);
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 8) {
    fprintf(stderr, "usage: %s HOST PORT USER DATABASE CLIENTS SECONDS select-only|select1-prepared [SCALE]\n", argv[0]);
    return 2;
  }
  host = argv[1], port = atoi(argv[2]), user = argv[3], db = argv[4];
  int clients = atoi(argv[5]);
  seconds = atoi(argv[6]), mode = argv[7];
  if (argc > 8) scale = atoi(argv[8]);
  if (clients < 1 || clients > 1024 || seconds < 1) {
    fprintf(stderr, "CLIENTS must be 1-1024 and SECONDS at least 1\n");
    return 2;
  }
  if (strcmp(mode, "select-only") != 0 && strcmp(mode, "select1-prepared") != 0) {
    fprintf(stderr, "mode must be select-only or select1-prepared\n");
    return 2;
  }
  pthread_t t[1024];
  for (long i = 0; i < clients; i++)
    if (pthread_create(&t[i], NULL, client, (void *)i) != 0) die("pthread_create");
  sleep((unsigned)seconds);
  stop = 1;
  long total = 0;
  for (int i = 0; i < clients; i++) {
    pthread_join(t[i], NULL);
    total += done[i];
  }
  printf("transactions %ld\ntps = %.1f\n", total, (double)total / seconds);
  return 0;
}
