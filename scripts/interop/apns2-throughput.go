// scripts/interop/apns2-throughput.go: a throughput driver for sideshow/apns2 (Go), used by
// scripts/interop/apns2-side-by-side, which builds it inside an apns2 checkout (its vendor
// directory supplies golang.org/x/net and golang-jwt). Usage: ADDRESS CA_PEM P8_KEY COUNT WORKERS:
// COUNT notifications, provider-token authentication (MOCKKEY001 of MOCKTEAM01, the key
// `apn certs` writes), from WORKERS goroutines; prints one JSON line.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sideshow/apns2"
	"github.com/sideshow/apns2/token"
	"golang.org/x/net/http2"
)

func main() {
	address, caFile, keyFile := os.Args[1], os.Args[2], os.Args[3]
	count, _ := strconv.Atoi(os.Args[4])
	workers, _ := strconv.Atoi(os.Args[5])
	key, err := token.AuthKeyFromFile(keyFile)
	if err != nil {
		panic(err)
	}
	client := apns2.NewTokenClient(&token.Token{AuthKey: key, KeyID: "MOCKKEY001", TeamID: "MOCKTEAM01"})
	pem, _ := os.ReadFile(caFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client.HTTPClient.Transport.(*http2.Transport).TLSClientConfig = &tls.Config{RootCAs: pool, ServerName: "localhost"}
	client.Host = "https://" + address
	jobs := make(chan int, workers)
	var ok, failed int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				n := &apns2.Notification{DeviceToken: fmt.Sprintf("%064x", i+1), Topic: "com.example.app",
					Payload: []byte(`{"aps":{"alert":"Hello, this is a benchmark notification","badge":1},"id":"0123456789"}`)}
				res, err := client.Push(n)
				if err == nil && res.StatusCode == 200 {
					atomic.AddInt64(&ok, 1)
				} else {
					atomic.AddInt64(&failed, 1)
				}
			}
		}()
	}
	for i := 0; i < count; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	fmt.Printf("{\"sent\":%d,\"ok\":%d,\"failed\":%d,\"seconds\":%.3f,\"rate\":%.0f}\n", count, ok, failed, elapsed, float64(ok)/elapsed)
}
