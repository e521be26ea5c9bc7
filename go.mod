module github.com/opensfc/sfc

go 1.26.8

require (
	github.com/gopacket/gopacket v1.7.7
	github.com/sirupsen/logrus v1.10.2
	github.com/spf13/cobra v1.10.2
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
