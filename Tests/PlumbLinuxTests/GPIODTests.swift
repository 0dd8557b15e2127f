import Testing
import Foundation
import PlumbHAL
import CGPIOD
import Glibc
@testable import PlumbLinux

/// Host-side libgpiod checks (no GPIO chip is needed); the kernel paths run in the VM test.
@Suite struct GPIODTests {
    /// scripts/test.d/20-libgpiod-v2 sets PLUMB_LIBGPIOD_PREFIX to a libgpiod 2.1.3 prefix.
    static let expectsV2 = !(ProcessInfo.processInfo.environment["PLUMB_LIBGPIOD_PREFIX"] ?? "").isEmpty

    @Test func compiledAgainstTheExpectedLibgpiod() {
        #expect(GPIOD.apiMajorVersion == (Self.expectsV2 ? 2 : 1))
        #expect(GPIOD.libraryVersion.hasPrefix(Self.expectsV2 ? "2." : "1."))
    }

    @Test func missingChipNamesWhatWasTried() {
        do {
            _ = try GPIODInterruptLine(GPIOLineSelector(chip: "no-such-chip-label", line: .offset(1)), edges: .both)
            Issue.record("a chip that does not exist was opened")
        } catch {
            #expect(error.kind == .chipNotFound)
            #expect(error.message.hasPrefix("no GPIO chip \"no-such-chip-label\" (tried /dev/no-such-chip-label, a label)"))
            #expect(error.message.hasSuffix("list chips with `gpiodetect`"))
        }
    }

    @Test func missingChipPath() {
        #expect(throws: GPIOError.self) {
            try GPIODOutput(GPIOLineSelector(chip: "/nonexistent/gpiochip9", line: .offset(0)))
        }
    }

    @Test func lineNameSearchAcrossChipsReportsLineNotFound() throws {
        // On a host with GPIO chips a name this odd still matches nothing.
        do {
            _ = try GPIODInterruptLine(GPIOLineSelector(line: .name("PLUMB-NO-SUCH-LINE-\(UInt32.random(in: 0...UInt32.max))")), edges: .rising)
            Issue.record("a line that does not exist was requested")
        } catch {
            #expect(error.kind == .lineNotFound)
            #expect(error.message.contains("has no line named \"PLUMB-NO-SUCH-LINE-"))
        }
    }

    @Test func selectorDescriptions() {
        #expect(GPIOLineSelector(chip: "gpiochip0", line: .offset(17)).description == "gpiochip0 line 17")
        #expect(GPIOLineSelector(line: .name("GPIO17")).description == "line \"GPIO17\"")
    }
}

@Suite struct SystemClockTests {
    @Test func monotonicAndSleepsAtLeastAsLongAsAsked() {
        let clock = SystemClock()
        let a = clock.nowNanoseconds
        clock.sleep(nanoseconds: 2_000_000)
        let b = clock.nowNanoseconds
        #expect(b >= a + 2_000_000)
    }
}

/// A data-ready line held by Plumb's own consumer name is another plumb process on the same IMU
/// (plumb.service running while the user tries 'plumb level'): the error said "stop that program
/// or driver, or choose another line", and another line would leave two processes resetting one chip.
@Suite struct GPIOBusyByPlumbTests {
    static func busy(heldBy holder: String, output: Bool = false, heldHere: Bool? = nil) -> GPIOError {
        var result = plumb_gpio_result()
        result.status = PLUMB_GPIO_LINE_BUSY
        result.error_number = EBUSY
        withUnsafeMutableBytes(of: &result.consumer) { buffer in
            for (i, byte) in holder.utf8.enumerated() { buffer[i] = byte }
        }
        return GPIODRequest.error(result, selector: GPIOLineSelector(chip: "gpiochip0", line: .offset(17)),
                                  described: "gpiochip0 line 17 (GPIO17)", chip: "gpiochip0", label: "pinctrl-bcm2711", consumer: "plumb", output: output, heldHere: heldHere)
    }

    @Test func aLineHeldByPlumbNamesTheOtherPlumbProcess() {
        let error = Self.busy(heldBy: "plumb")
        #expect(error.kind == .lineBusy)
        #expect(error.message == "gpiochip0 line 17 (GPIO17) is busy: held by consumer \"plumb\", another plumb process reading the IMU this line wakes "
                + "(plumb.service, plumb-sensor-proxy.service, or a plumb command in another terminal); stop it first "
                + "('sudo systemctl stop plumb'): two would each reset and configure the same chip")
    }

    /// An LED line held by another plumb process: only plumb led drives GPIO lines (the daemon's
    /// outputs.leds are sysfs LEDs, whose kernel driver holds the GPIO under the LED's name), so
    /// stopping plumb.service does not free it.
    @Test func anLEDLineHeldByPlumbNamesTheOtherPlumbProcess() {
        #expect(Self.busy(heldBy: "plumb", output: true).message
                == "gpiochip0 line 17 (GPIO17) is busy: held by consumer \"plumb\", another plumb process driving it "
                + "(a plumb led in another terminal or a script); stop it first, or choose another line")
    }

    /// The same process asking twice (`plumb led --lines 17,17`, or an LED on the IMU's data-ready
    /// line): it was named "another plumb process", to be stopped with systemctl, which frees nothing.
    @Test func aLineThisProcessHoldsIsNamedAsItsOwn() {
        #expect(Self.busy(heldBy: "plumb", output: true, heldHere: true).message
                == "gpiochip0 line 17 (GPIO17) is busy: this plumb process already drives an LED on it; name each line once in --lines")
        #expect(Self.busy(heldBy: "plumb", output: true, heldHere: false).message
                == "gpiochip0 line 17 (GPIO17) is busy: this plumb process already waits on it as the IMU's data-ready line; "
                + "give the LED another line (the data-ready line is imu.interrupt or the board's)")
        #expect(Self.busy(heldBy: "plumb", heldHere: true).message
                == "gpiochip0 line 17 (GPIO17) is busy: this plumb process already drives an LED on it; "
                + "give the LED another line, or the IMU another data-ready line (imu.interrupt)")
        // Held here under another consumer name (a library user's, the VM test's "imu-holder"):
        // the kernel's name is kept in the message (scripts/vm-test's gpio.busy-line-names-consumer).
        #expect(Self.busy(heldBy: "imu-holder", heldHere: false).message
                == "gpiochip0 line 17 (GPIO17) is busy: this plumb process already waits on it as the IMU's data-ready line (consumer \"imu-holder\"); "
                + "give each IMU its own data-ready line (imu.interrupt)")
    }

    /// Only a line another process holds under plumb's own name is another plumb process's, which
    /// `plumb run --wait-for-sensor` awaits (it lets go of the chip's claim a moment before the line).
    @Test func onlyALineAnotherProcessHoldsAsPlumbIsHeldByAnotherPlumbProcess() {
        #expect(Self.busy(heldBy: "plumb").isHeldByAnotherPlumbProcess)
        #expect(Self.busy(heldBy: "plumb", output: true).isHeldByAnotherPlumbProcess)
        #expect(!Self.busy(heldBy: "plumb", heldHere: true).isHeldByAnotherPlumbProcess)
        #expect(!Self.busy(heldBy: "plumb", heldHere: false).isHeldByAnotherPlumbProcess)
        #expect(!Self.busy(heldBy: "shutdown").isHeldByAnotherPlumbProcess)
        #expect(!Self.busy(heldBy: "").isHeldByAnotherPlumbProcess)
    }

    @Test func aLineHeldBySomethingElseSaysToFreeItOrChooseAnother() {
        #expect(Self.busy(heldBy: "shutdown").message
                == "gpiochip0 line 17 (GPIO17) is busy: held by consumer \"shutdown\"; stop that program or driver, or choose another line")
        #expect(Self.busy(heldBy: "").message
                == "gpiochip0 line 17 (GPIO17) is busy: held by another consumer (the kernel does not say which); stop that program or driver, or choose another line")
    }
}
