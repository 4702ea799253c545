import APNTLS
import Foundation

// `apn SUBCOMMAND …`: the command-line tools of swift-apn (ApnCommand lists them).

// OpenSSL without its atexit cleanup, before anything initialises it: exit() below must
// not free OpenSSL's state under the threads still ending (OpenSSLLibrary).
OpenSSLLibrary.initialize()
// A closed standard output (`apn … | head`) is an EPIPE for LineWriter, not a kill.
signal(SIGPIPE, SIG_IGN)
// SIGINT and SIGTERM blocked in this thread before any other starts, so every thread
// inherits the block: libdispatch reads them from a signalfd (StopSignals), and a process
// signal that found a thread not blocking it, with the disposition SIG_IGN, would be
// discarded by the kernel — `apn send` then never saw its SIGINT (a rare hang in tests).
var stopSignalMask = sigset_t()
sigemptyset(&stopSignalMask)
sigaddset(&stopSignalMask, SIGINT)
sigaddset(&stopSignalMask, SIGTERM)
// SIGHUP too, for the commands that reload on it (HangupSignals); CommandRouter gives the
// others its default back before they run.
sigaddset(&stopSignalMask, SIGHUP)
pthread_sigmask(SIG_BLOCK, &stopSignalMask, nil)
exit(CommandRouter.run(Array(CommandLine.arguments.dropFirst()), root: ApnCommand.self))
