#if !FUZZING
import FuzzSupport

/// Without `-DFUZZING` the target replays the files and directories it is given.
@main
enum ReplayMain {
    static func main() {
        Replay.main(fuzzErrorResponseDecoder, seeds: errorResponseSeeds)
    }
}
#endif
