// A service that accepts connections and never answers (the token exchange aside), run as a child
// process by `convoy()` in outage.mjs: sockets are counted where the service sees them, in another
// process, so the count does not lag behind a client process that keeps its event loop busy.
// Reports { port } once listening, then every 50 ms { open, maxOpen, connections, requests }.
import { createServer } from 'node:http';

const TOKEN = JSON.stringify({ accessToken: 'tok-convoy', tokenType: 'Bearer', expiresIn: 3600 });
let open = 0;
let maxOpen = 0;
let connections = 0;
let requests = 0;
const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  if (req.url?.endsWith('/auth/token')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(TOKEN);
    return;
  }
  requests += 1;
  // never answered: the client's timeout ends it
});
server.on('connection', (socket) => {
  open += 1;
  connections += 1;
  maxOpen = Math.max(maxOpen, open);
  socket.on('close', () => (open -= 1));
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
const report = () => process.send?.({ open, maxOpen, connections, requests });
const timer = setInterval(report, 50);
process.on('message', (message) => {
  if (message === 'report') report();
  if (message === 'stop') {
    clearInterval(timer);
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
// never outlive the parent
process.on('disconnect', () => process.exit(0));
